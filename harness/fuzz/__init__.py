"""Differential fuzzing: generated graphs judged as ``run`` judges, every new
kind of failure shrunk to a minimal case. The fuzzer itself is ``driver.fuzz``."""
