"""One sanitiser for every text we print or publish that came from a file or a name.

Labels, devices, case names, messages and file names are read from files a
user (or an attacker) wrote, so each may hold:

- lone surrogates (JSON's ``"\\ud800"`` reads as one): UTF-8 cannot encode
  them, so a print or a page write ends in a UnicodeEncodeError;
- control characters: a newline forges a line of ``archive list`` or cuts an
  error message in two, an ESC sequence rewrites the user's terminal;
- bidirectional overrides (U+202A..U+202E, U+2066..U+2069) that show one text
  as another;
- on a published page, a local absolute path (the pages and the archive cache
  name no local folder: README).

``printable`` makes a text one line for a terminal; ``publishable`` keeps
tabs and newlines (a page shows a multi-line message as such) and cuts local
paths. Both write what they replace as ``\\xNN``/``\\uNNNN``, so nothing is
lost and nothing is shown as what it is not.
"""
from __future__ import annotations

import re

from webnn_harness.outputs.rerun_commands import strip_local_paths

# C0 and C1 controls, DEL, surrogates, line and paragraph separators, bidirectional controls.
_NOT_PRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# The same, less tab, newline and carriage return: a page shows those as layout.
_NOT_PUBLISHABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """``text`` as one line a terminal shows as it is: every control, surrogate and direction override
    written as an escape."""
    return _NOT_PRINTABLE.sub(_escape, str(text))


def publishable(text: str) -> str:
    """``text`` as a page may hold it: encodable as UTF-8, no terminal or direction controls, no local
    absolute path (cut to its last component: rerun_commands.strip_local_paths)."""
    return strip_local_paths(_NOT_PUBLISHABLE.sub(_escape, text))
