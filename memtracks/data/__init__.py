"""The data files memtracks reads (``rules/`` and ``lexicons/``): one schema and loader per
file, each failing with the file's name, entry and field. :class:`memtracks.toolkit.Toolkit`
holds what they load; the pipeline reads the toolkit, never the files."""
