"""Case loading: find case files, validate them against the schema, name each
case stably (corpus and path), size it from its descriptors, and select what
a run takes."""
