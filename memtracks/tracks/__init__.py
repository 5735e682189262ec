"""The three tracks: facts (what is), temporal (what happened when), inferences (what follows)."""
