"""The probe's isolated measurements (harness/probe/isolate.py): forked from
the workers' fork server, they report through ``send``, and however they
end, the messages sent before the end are kept and the ending is named."""
from __future__ import annotations

import os
import signal

from webnn_harness.probe.isolate import run_isolated, start_isolated


def _reports(send, words):
    for word in words:
        send(word)


def _environment(send, name):
    send(os.environ.get(name))


def _dies(send, how):
    send("before")
    if how == "exit":
        os._exit(3)
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    raise ValueError("no such size")


def _hangs(send):
    send("started")
    signal.pause()


def test_messages_arrive_in_order_and_the_end_is_named():
    assert run_isolated(_reports, (["a", "b"],), timeout=60) == (["a", "b"], "end")


def test_the_child_reads_the_environment_of_the_moment_not_the_fork_servers(monkeypatch):
    monkeypatch.setenv("WEBNN_HARNESS_ISOLATE_TEST", "set after the server started")
    assert run_isolated(_environment, ("WEBNN_HARNESS_ISOLATE_TEST",), timeout=60) == (
        ["set after the server started"], "end")


def test_an_exception_a_crash_and_a_kill_keep_what_was_sent():
    assert run_isolated(_dies, ("raise",), timeout=60) == (["before"], "exception: ValueError: no such size")
    messages, ending = run_isolated(_dies, ("exit",), timeout=60)
    assert messages == ["before"] and ending == "crash: exit code 3"
    messages, ending = run_isolated(_dies, ("kill",), timeout=60)
    assert messages == ["before"] and ending == f"crash: exit code {-signal.SIGKILL}"


def test_a_hang_is_a_timeout_and_the_process_is_gone():
    isolated = start_isolated(_hangs, ())
    assert isolated.collect(timeout=2) == (["started"], "timeout")
    assert not isolated.process.is_alive()
