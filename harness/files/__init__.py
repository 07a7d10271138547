"""Reading untrusted JSON and writing files safely: below every stage (harness/files/reading.py, writes.py)."""
