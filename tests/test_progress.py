"""Progress: a bar on a terminal; without one, a line now and then naming the
backend, the count out of the total, the rate and the time left."""
import io

from webnn_harness.progress import Progress


def test_without_a_terminal_it_prints_whole_lines_with_total_rate_and_time_left():
    out = io.StringIO()
    p = Progress("case", file=out, interactive=False, every=0)
    p.start("onnxruntime 1.32.0", 40)
    for _ in range(3):
        p.update()
    p.close()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and len(lines) == 4  # 3 updates and the final count
    assert lines[-1].startswith("onnxruntime 1.32.0:") and "3/40" in lines[-1]
    assert "case/s" in lines[-1] and "<" in lines[-1]  # rate, and elapsed<remaining


def test_lines_are_rate_limited_and_quiet_prints_nothing():
    out = io.StringIO()
    p = Progress("case", file=out, interactive=False, every=3600)
    p.start("reference 0.1.0", 1000)
    for _ in range(1000):
        p.update()
    p.close()
    assert len(out.getvalue().splitlines()) == 1  # only the final count
    quiet = io.StringIO()
    q = Progress("case", file=quiet, enabled=False)
    q.start("x", 2)
    q.update()
    q.close()
    assert quiet.getvalue() == ""
