"""What a run leaves behind and what reads it back: records, run folders,
shard merges, diffs of two runs, JUnit XML, re-run commands, expectations
files, opSupportLimits files and readable JSON."""
