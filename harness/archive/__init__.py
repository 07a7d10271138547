"""Published results across versions and over time: the archive of run, probe,
bench and fuzz outputs (``store``), each entry's digest (``digest``) and step
detection in a series (``steps``). ``reports/archive.py`` builds the site's
history and changes pages from them."""
from webnn_harness.archive.store import Archive, ArchiveError, Entry

__all__ = ["Archive", "ArchiveError", "Entry"]
