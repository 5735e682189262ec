"""Who a statement is about, in English and Chinese: the subject phrase a pattern captured
(:mod:`~memtracks.pipeline.subjects.resolver`), the subject a parse gives a clause
(:mod:`~memtracks.pipeline.subjects.clause`), the topic a Chinese clause without a subject
carries on (:mod:`~memtracks.pipeline.subjects.topics`), relatives and the names they carry
(:mod:`~memtracks.pipeline.subjects.kin`) and where a Chinese name ends
(:mod:`~memtracks.pipeline.subjects.chinese_names`)."""
