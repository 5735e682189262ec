"""The benchmark harness (``python -m benchmarks``) and speed benchmarks for memtracks."""
