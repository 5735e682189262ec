"""memtracks as a LangChain retriever: the memory cards for a question, as Documents.

    from memtracks.integrations.langchain import MemtracksRetriever
    retriever = MemtracksRetriever(memory=mem, user_id="alice", top_n=5)
    retriever.invoke("Where do I live now?")   # [Document(page_content="[fact] user lives in: ...")]

Needs the ``langchain`` extra (``pip install 'memtracks[langchain]'``).
"""

from __future__ import annotations

from typing import Any

from memtracks.errors import MissingDependencyError
from memtracks.memory import Memory

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from pydantic import ConfigDict
except ImportError as exc:  # pragma: no cover - the extra is installed by make test
    raise MissingDependencyError("the LangChain retriever needs: pip install 'memtracks[langchain]'") from exc


class MemtracksRetriever(BaseRetriever):
    """Each card becomes a Document: its text is the page content; track, score, confidence,
    source turn ids, validity, metadata and ``ref`` (for :meth:`Memory.get`) are metadata.

    ``retrieve_kwargs`` go to :meth:`Memory.retrieve` (``now``, ``session_id``, ``tracks``...).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory
    user_id: str
    agent_id: str | None = None
    top_n: int = 5
    retrieve_kwargs: dict[str, Any] = {}

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        recall = self.memory.retrieve(
            query, user_id=self.user_id, agent_id=self.agent_id, top_n=self.top_n, **self.retrieve_kwargs
        )
        docs = []
        for card in recall.cards:
            meta = card.to_dict()
            text = meta.pop("text")
            docs.append(Document(page_content=text, metadata=meta, id=card.ref))
        return docs
