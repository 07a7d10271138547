"""What a run leaves behind and what reads it back: every kind of output folder
(kinds.py), records, bench and accuracy records, run folders, shard merges,
diffs of two runs, JUnit XML, re-run commands, expectations files,
opSupportLimits files and readable JSON."""
