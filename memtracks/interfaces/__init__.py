"""How people and programs reach a memory besides the Python API: the ``memtracks`` command
line (:mod:`~memtracks.interfaces.cli`), files in and out (:mod:`~memtracks.interfaces.io`),
printed views of stored records and progress reporting. Agent frameworks are served by
:mod:`memtracks.integrations`."""
