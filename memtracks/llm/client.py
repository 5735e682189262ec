"""The one thing consolidation asks of a language model — ``complete(system, prompt) -> str``
— and a client for any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp).

The client uses the standard library only. Base URL, model and key come from the arguments
or the environment (``MEMTRACKS_LLM_BASE_URL`` / ``OPENAI_BASE_URL``, ``MEMTRACKS_LLM_MODEL``,
``MEMTRACKS_LLM_API_KEY`` / ``OPENAI_API_KEY``). Every failure — no answer in time, an HTTP
error, a body that is not the expected JSON — raises :class:`LLMError`; token counts of the
last call are kept in ``usage``.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from memtracks.errors import LLMError


@runtime_checkable
class ConsolidationLLM(Protocol):
    """A model that answers a system message and a prompt with text."""

    name: str

    def complete(self, system: str, prompt: str) -> str: ...


@dataclass
class Usage:
    """Token counts of one call, as the endpoint reported them (0 when it did not)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


def _env(*names: str) -> str | None:
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


@dataclass
class OpenAIClient:
    """``POST {base_url}/chat/completions`` with a system and a user message.

    Args:
        base_url: e.g. "https://api.openai.com/v1", "http://localhost:11434/v1" (Ollama).
        model: the model name the endpoint knows ("gpt-4o-mini", "qwen2.5:7b").
        api_key: sent as a bearer token; optional for local servers.
        timeout: seconds to wait for an answer.
        temperature: sampling temperature (low: extraction wants the same answer twice).
    """

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    timeout: float = 60.0
    temperature: float = 0.0
    usage: Usage = field(default_factory=Usage)

    def __post_init__(self) -> None:
        self.base_url = (self.base_url or _env("MEMTRACKS_LLM_BASE_URL", "OPENAI_BASE_URL") or "").rstrip("/")
        self.model = self.model or _env("MEMTRACKS_LLM_MODEL")
        self.api_key = self.api_key or _env("MEMTRACKS_LLM_API_KEY", "OPENAI_API_KEY")
        if not self.base_url or not self.model:
            raise LLMError(
                "an LLM needs a base URL and a model: pass base_url= and model=, or set "
                "MEMTRACKS_LLM_BASE_URL and MEMTRACKS_LLM_MODEL"
            )

    @property
    def name(self) -> str:
        return f"{self.model}@{self.base_url}"

    def complete(self, system: str, prompt: str) -> str:
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
            "temperature": self.temperature,
        }
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions", data=json.dumps(body).encode("utf-8"), headers=headers
        )
        self.usage = Usage()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            raise LLMError(f"{self.name} answered HTTP {exc.code}: {exc.read()[:200]!r}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise LLMError(f"{self.name} did not answer: {getattr(exc, 'reason', exc)}") from None
        try:
            data = json.loads(raw)
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError(f"{self.name} sent no chat completion: {raw[:200]!r}") from None
        if not isinstance(content, str):
            raise LLMError(f"{self.name} sent a completion without text")
        used = data.get("usage") or {}
        self.usage = Usage(int(used.get("prompt_tokens") or 0), int(used.get("completion_tokens") or 0))
        return content
