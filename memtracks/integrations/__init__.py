"""Adapters for the frameworks agents already use; each is an optional extra.

- :mod:`.mcp_server` — an MCP server (``pip install 'memtracks[mcp]'``, ``memtracks mcp``);
- :mod:`.langgraph` — a LangGraph ``BaseStore`` (``memtracks[langgraph]``);
- :mod:`.langchain` — a LangChain retriever (``memtracks[langchain]``).
"""
