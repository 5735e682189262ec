"""A car value names a car (lexicons/vehicles.yaml): "I bought a used Trek bike" and
买了一辆二手捷安特 are bicycles, not the speaker's car — real patterns, jieba, inference and
SQLite; a bad vehicles file fails naming its file, entry and field."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memtracks import Memory
from memtracks.data.lexicons import load_lexicons
from memtracks.errors import DataFileError

T0 = datetime(2024, 3, 1, 10, tzinfo=timezone.utc)


def cars(memory, text):
    memory.write(text, user_id="u1", timestamp=T0)
    return [f.value for f in memory.facts("u1", include_superseded=True) if f.slot == "car"]


@pytest.mark.parametrize(
    "text",
    [
        "我昨天花四百块买了一辆二手捷安特。",
        "我买了一辆自行车，周末骑着玩。",
        "我刚买了一辆电动车，上下班方便。",
        "我入手了一辆山地车。",
        "我提了一辆美利达公路车。",
        "我買了一輛腳踏車。",
        "我買了一台二手機車。",
        "我们给宝宝买了一辆婴儿车。",
        "I bought a used Trek bike yesterday.",
        "I just bought a Giant road bike for $400.",
        "My new ride is a Cannondale mountain bike.",
        "I drive a Harley on weekends.",
        "I bought a toy car for my nephew.",
        "I bought a leaf blower yesterday.",
        "I got a mini fridge for my dorm.",
    ],
)
def test_no_car_from_another_vehicle_or_thing(memory, text):
    assert cars(memory, text) == []


@pytest.mark.parametrize(
    "text,value",
    [
        ("我买了一辆特斯拉。", "特斯拉"),
        ("我上個月買了一輛本田雅閣。", "本田雅閣"),
        ("我买了一辆二手小轿车。", "二手小轿车"),
        ("我买了一辆白色的SUV。", "白色的SUV"),
        ("我买了一辆新的理想L7。", "理想L7"),
        ("我买了一辆Tesla。", "Tesla"),
        ("I just bought a Tesla Model 3.", "Tesla Model 3"),
        ("I just bought a Nissan Leaf!", "Nissan Leaf"),
        ("I drive a Prius.", "Prius"),
        ("I drive a minivan now, two kids lol.", "minivan"),
        ("My car is a 2015 Subaru Outback.", "2015 Subaru Outback"),
    ],
)
def test_a_car_is_still_a_car(memory, text, value):
    assert value in cars(memory, text)


@pytest.mark.parametrize(
    "value,car",
    [
        ("二手捷安特", False),
        ("美利达公路车", False),  # 车 in it, but a road bike
        ("自行车", False),
        ("電動車", False),  # Traditional, read as Simplified by the caller
        ("比亚迪汉", True),
        ("新车", True),
        ("used Trek bike", False),
        ("giant SUV", True),  # "Giant" the make is capitalised
        ("Nissan Leaf", True),
        ("leaf blower", False),
        ("golf cart", False),
        ("Golf GTI", True),
    ],
)
def test_is_car(toolkit, value, car):
    vehicles = toolkit.lexicons.vehicles
    assert vehicles.is_car(toolkit.lexicons.to_simplified(value)) is car


def test_a_bad_vehicles_file_names_file_entry_and_field(tmp_path):
    bundled = load_lexicons()
    folder = tmp_path / "lex"
    folder.mkdir()
    for name in (
        "categories.yaml",
        "entities.yaml",
        "relations.yaml",
        "animals.yaml",
        "jobs.yaml",
        "activities.yaml",
        "conditions.yaml",
        "surnames_zh.yaml",
        "traditional.yaml",
    ):
        (folder / name).write_text((bundled_dir() / name).read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "vehicles.yaml").write_text(
        "vehicles:\n  - {key: bike, kind: other, en: [bike]}\n  - {key: car, kind: car_word, en: [car, Bike]}\n"
    )
    with pytest.raises(DataFileError) as err:
        load_lexicons(folder)
    assert (
        "vehicles.yaml" in str(err.value) and "vehicles[1] 'car'" in str(err.value) and "field 'en'" in str(err.value)
    )
    (folder / "vehicles.yaml").write_text("vehicles:\n  - {key: bike, kind: bicycle, en: [bike]}\n")
    with pytest.raises(DataFileError) as err:
        load_lexicons(folder)
    assert "vehicles.yaml" in str(err.value) and "'bike'" in str(err.value) and "kind" in str(err.value)
    assert bundled.vehicles.is_car("Tesla")


def bundled_dir():
    from memtracks.data.files import bundled

    return bundled("lexicons", "vehicles.yaml").parent


def test_your_own_vehicles_file_adds_makes(tmp_path, toolkit, embedder):
    folder = tmp_path / "my_lexicons"
    folder.mkdir()
    (folder / "vehicles.yaml").write_text("vehicles:\n  - {key: aptera, kind: car, en: [aptera], zh: [阿普特拉]}\n")
    mem = Memory(toolkit=toolkit, embedder=embedder, lexicons_dir=folder)
    mem.write("I just bought an Aptera!", user_id="u1", timestamp=T0)
    mem.write("I bought a used Trek bike.", user_id="u2", timestamp=T0)
    assert [f.value for f in mem.facts("u1", slot="car")] == ["Aptera"]
    assert mem.facts("u2", slot="car") == []
