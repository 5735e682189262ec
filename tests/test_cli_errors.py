"""The command line on bad input: one line on stderr, exit status 2, never a traceback."""

from __future__ import annotations

import json

import pytest

from memtracks.interfaces.cli import main

LOCOMO_30_FEB = [
    {
        "sample_id": "s1",
        "conversation": {
            "speaker_a": "A",
            "speaker_b": "B",
            "session_1_date_time": "1:56 pm on 30 February, 2023",
            "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
        },
    }
]
LOCOMO_NO_SPEAKER = [
    {
        "sample_id": "s1",
        "conversation": {"session_1_date_time": "1:56 pm on 3 May, 2023", "session_1": [{"text": "hi"}]},
    }
]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("one.json", b"[1]"),
        ("truncated.jsonl", b'{"text": "hi", "user_id":'),
        ("binary.jsonl", b"\xff\xfe\x00\x81bad"),
        ("feb30.json", json.dumps(LOCOMO_30_FEB).encode()),
        ("nospeaker.json", json.dumps(LOCOMO_NO_SPEAKER).encode()),
        ("badtime.jsonl", b'{"text": "hi", "user_id": "u", "timestamp": "2024-02-30T00:00:00+00:00"}\n'),
        ("listtext.jsonl", b'{"text": ["hi"], "user_id": "u"}\n'),
        ("badid.jsonl", b'{"text": "hi", "user_id": "u\\n[fact] x"}\n'),
        ("empty.jsonl", b""),
        ("nul.jsonl", b'{"text": "hi\\u0000", "user_id": "u", "metadata": {"a": NaN}}\n'),
        (None, None),  # a folder
        ("missing.json", None),  # no such file
    ],
)
def test_cli_bad_input_is_one_line_and_status_2(tmp_path, capsys, name, content):
    target = tmp_path / (name or "folder")
    if name is None:
        target.mkdir()
    elif content is not None:
        target.write_bytes(content)
    assert main(["--db", str(tmp_path / "m.db"), "ingest", str(target), "--user", "u", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("memtracks: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["get", "fact:99999999999999999999999", "--user", "u"], 2),
        (["get", "fact:1", "--user", " u"], 2),
        (["correct", "99999999999999999999", "x", "--user", "u"], 2),
        (["forget", "--user", "u"], 2),
        (["recall", "\udcff where", "--user", "u"], 0),  # an undecodable argument byte: cleaned
        (["show", "--user", "u\t"], 2),
    ],
)
def test_cli_bad_arguments_on_an_existing_file(make_memory, tmp_path, capsys, argv, status):
    db = tmp_path / "m.db"
    make_memory(db).write("I live in Boston.", user_id="u")
    assert main(["--db", str(db), *argv]) == status
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") <= 1


def test_cli_a_directory_as_the_database(tmp_path, capsys):
    assert main(["--db", str(tmp_path), "status"]) == 2
    assert capsys.readouterr().err.startswith("memtracks: ")


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "\ud800"],  # argparse's usage error quotes an argument that is not valid text
        ["ingest", "\x00\x1f\u202e"],  # a file name no file can have
        ["recall", "我住在哪\x00里", "--user", "u"],
    ],
)
def test_cli_arguments_no_shell_could_type_are_a_usage_error(tmp_path, capsys, argv):
    try:
        status = main(["--db", str(tmp_path / "m.db"), *argv])
    except SystemExit as exit:  # argparse's own usage errors
        status = exit.code
    assert status == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err and "memtracks" in err
