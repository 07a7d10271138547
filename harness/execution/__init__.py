"""Where and how cases run: the worker pool and its workers forked from one
fork server, process lifetimes, and the executors (local, or a Ray cluster)."""
