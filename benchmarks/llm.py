"""A minimal client for OpenAI-compatible chat endpoints, plus a scripted fake for tests.

Standard library only (``urllib.request`` + ``json``). The API key is sent in the
``Authorization`` header and never appears in error messages or log records.
"""

from __future__ import annotations

import json
import logging
import os
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from http.client import HTTPException
from typing import Any, Protocol

from memtracks.errors import MemtracksError

log = logging.getLogger(__name__)

Message = dict[str, str]
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_MAX_BACKOFF = 60.0
_EXCERPT = 300


class LLMError(MemtracksError, RuntimeError):
    """A chat completion failed: bad request, malformed response, or retries exhausted.

    Attributes:
        status: The HTTP status of the last response, or ``None`` (connection error, bad JSON...).
    """

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class LLM(Protocol):
    """Anything that can answer a chat: :class:`ChatClient` or :class:`ScriptedLLM`."""

    def complete(self, messages: list[Message], *, max_tokens: int = 200) -> str:
        """Return the assistant's reply to ``messages``."""
        ...


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to call an OpenAI-compatible chat endpoint.

    Attributes:
        base_url: API root, e.g. ``"http://localhost:11434/v1"``; ``/chat/completions`` is appended.
        model: Model name sent in every request.
        api_key: Bearer token; ``None`` sends no ``Authorization`` header (local servers).
        timeout: Seconds per HTTP attempt.
        max_retries: Extra attempts after the first on 429, 5xx and connection errors.
        temperature: Sampling temperature.
    """

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0
    max_retries: int = 3
    temperature: float = 0.0

    def __repr__(self) -> str:  # keep the key out of logs and tracebacks
        key = "None" if self.api_key is None else "'***'"
        return (
            f"LLMConfig(base_url={self.base_url!r}, model={self.model!r}, api_key={key}, "
            f"timeout={self.timeout}, max_retries={self.max_retries}, "
            f"temperature={self.temperature})"
        )


def config_from_env(
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> LLMConfig | None:
    """Build an :class:`LLMConfig` from explicit arguments, falling back to the environment.

    Explicit arguments win. Otherwise ``MEMTRACKS_LLM_BASE_URL`` (then ``OPENAI_BASE_URL``),
    ``MEMTRACKS_LLM_MODEL`` and ``MEMTRACKS_LLM_API_KEY`` (then ``OPENAI_API_KEY``) are read,
    at call time only.

    Args:
        base_url: API root, overriding the environment.
        model: Model name, overriding the environment.
        api_key: Key, overriding the environment.
        environ: Mapping to read instead of ``os.environ``.

    Returns:
        The config, or ``None`` when no base URL or no model is known (QA stage disabled).
    """
    env = os.environ if environ is None else environ

    def pick(explicit: str | None, *names: str) -> str | None:
        if explicit:
            return explicit
        return next((env[n].strip() for n in names if env.get(n, "").strip()), None)

    url = pick(base_url, "MEMTRACKS_LLM_BASE_URL", "OPENAI_BASE_URL")
    name = pick(model, "MEMTRACKS_LLM_MODEL")
    if not url or not name:
        return None
    return LLMConfig(base_url=url, model=name, api_key=pick(api_key, "MEMTRACKS_LLM_API_KEY", "OPENAI_API_KEY"))


class ChatClient:
    """Calls ``POST {base_url}/chat/completions`` and returns ``choices[0].message.content``.

    Retries 429, 5xx and connection errors with exponential backoff (1, 2, 4... seconds,
    or the server's ``Retry-After`` when longer, capped at 60). Other 4xx statuses and
    malformed responses raise :class:`LLMError` at once.
    """

    def __init__(self, config: LLMConfig, *, sleep: Callable[[float], None] = time.sleep, backoff: float = 1.0):
        """Create a client.

        Args:
            config: Endpoint, model and limits.
            sleep: Called with the delay in seconds before each retry (inject a no-op in tests).
            backoff: Delay before the first retry; doubled on each further retry.

        Raises:
            LLMError: When ``base_url`` is not an http(s) URL.
        """
        if not config.base_url.startswith(("http://", "https://")):
            raise LLMError(f"base_url must start with http:// or https://, got {config.base_url!r}")
        self.config = config
        self.url = config.base_url.rstrip("/") + "/chat/completions"
        self._sleep = sleep
        self._backoff = backoff

    def complete(self, messages: list[Message], *, max_tokens: int = 200) -> str:
        """Send one chat request and return the reply text.

        Args:
            messages: OpenAI-style ``{"role": ..., "content": ...}`` dicts.
            max_tokens: Upper bound on the reply length.

        Raises:
            LLMError: On a non-retryable status, a malformed response, or when retries run out.
        """
        body = json.dumps(
            {
                "model": self.config.model,
                "messages": messages,
                "temperature": self.config.temperature,
                "max_tokens": max_tokens,
            }
        ).encode("utf-8")
        attempts = self.config.max_retries + 1
        for attempt in range(attempts):
            try:
                return _parse_reply(self._post(body))
            except _Retryable as exc:
                if attempt + 1 >= attempts:
                    raise LLMError(
                        f"{self.url}: gave up after {attempts} attempt(s); last error: {exc.reason}", exc.status
                    ) from None
                delay = min(_MAX_BACKOFF, max(self._backoff * 2**attempt, exc.retry_after))
                log.warning(
                    "%s: %s; retry %d/%d in %.1fs", self.url, exc.reason, attempt + 1, self.config.max_retries, delay
                )
                self._sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _post(self, body: bytes) -> bytes:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.config.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            detail = self._redact(_read_excerpt(exc))
            if exc.code in _RETRY_STATUSES:
                raise _Retryable(f"HTTP {exc.code}: {detail}", exc.code, _retry_after(exc.headers)) from None
            raise LLMError(f"{self.url}: HTTP {exc.code}: {detail}", exc.code) from None
        except (OSError, HTTPException) as exc:  # URLError, timeouts, resets, refused
            reason = getattr(exc, "reason", None) or exc
            raise _Retryable(f"connection error: {self._redact(str(reason))}") from None

    def _redact(self, text: str) -> str:
        key = self.config.api_key
        return text.replace(key, "***") if key else text


class _Retryable(Exception):
    def __init__(self, reason: str, status: int | None = None, retry_after: float = 0.0):
        super().__init__(reason)
        self.reason, self.status, self.retry_after = reason, status, retry_after


def _read_excerpt(exc: urllib.error.HTTPError) -> str:
    try:
        text = exc.read().decode("utf-8", errors="replace")
    except (OSError, HTTPException):
        text = ""
    text = " ".join(text.split())
    return (text[:_EXCERPT] + "...") if len(text) > _EXCERPT else (text or exc.reason or "")


def _retry_after(headers: Any) -> float:
    try:
        return max(0.0, float(headers.get("Retry-After", 0)))
    except (TypeError, ValueError, AttributeError):
        return 0.0


def _parse_reply(raw: bytes) -> str:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LLMError(f"response is not valid JSON ({exc}): {raw[:_EXCERPT]!r}") from None
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        error = data.get("error") if isinstance(data, dict) else None
        hint = f"error: {error}" if error else f"got {str(data)[:_EXCERPT]}"
        raise LLMError(f"response has no choices[0].message.content; {hint}") from None
    if not isinstance(content, str):
        raise LLMError(f"choices[0].message.content is {type(content).__name__}, expected a string")
    return content


class ScriptedLLM:
    """Deterministic stand-in for :class:`ChatClient`: returns queued replies in order.

    Attributes:
        calls: One ``{"messages": [...], "max_tokens": n}`` dict per ``complete`` call.
    """

    def __init__(self, replies: Iterable[str] = ()):
        """Queue ``replies``, to be returned one per call."""
        self._replies: deque[str] = deque(replies)
        self.calls: list[dict[str, Any]] = []

    def enqueue(self, *replies: str) -> None:
        """Append replies to the queue."""
        self._replies.extend(replies)

    def complete(self, messages: list[Message], *, max_tokens: int = 200) -> str:
        """Record the call and return the next queued reply.

        Raises:
            LLMError: When the queue is empty.
        """
        self.calls.append({"messages": [dict(m) for m in messages], "max_tokens": max_tokens})
        if not self._replies:
            raise LLMError(f"ScriptedLLM has no replies left (call #{len(self.calls)}); enqueue() more replies")
        return self._replies.popleft()
