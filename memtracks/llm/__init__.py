"""An optional language model for consolidation: the minimal :class:`ConsolidationLLM`
protocol, an OpenAI-compatible client, and the two-phase extractor (:mod:`.extractor`).

>>> from memtracks.llm import OpenAIClient
>>> llm = OpenAIClient(base_url="http://localhost:11434/v1", model="qwen2.5:7b")  # doctest: +SKIP
>>> mem.consolidate("u1", llm=llm).llm.totals()                                   # doctest: +SKIP
"""

from memtracks.llm.client import ConsolidationLLM, OpenAIClient, Usage
from memtracks.llm.extractor import BatchCost, LLMExtractor, LLMReport
from memtracks.llm.parse import ExtractedFact

__all__ = ["BatchCost", "ConsolidationLLM", "ExtractedFact", "LLMExtractor", "LLMReport", "OpenAIClient", "Usage"]
