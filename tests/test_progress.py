"""Progress: a bar on a terminal; without one, a line now and then naming the
backend, the count out of the total, the rate and the time left."""
import io

from webnn_harness.progress import Progress


def lines_printed(updates: int, total: int, **options) -> list[str]:
    out = io.StringIO()
    p = Progress("case", file=out, interactive=False, **options)
    p.start("onnxruntime 1.32.0", total)
    for _ in range(updates):
        p.update()
    p.close()
    assert "\r" not in out.getvalue()  # whole lines, never a redrawn bar
    return out.getvalue().splitlines()


def test_without_a_terminal_it_prints_whole_lines_with_total_rate_and_time_left():
    lines = lines_printed(3, 40, every=0)
    assert len(lines) == 4  # 3 updates and the final count
    assert lines[-1].startswith("onnxruntime 1.32.0:") and "3/40" in lines[-1]
    assert "case/s" in lines[-1] and "<" in lines[-1]  # rate, and elapsed<remaining


def test_lines_are_rate_limited_and_quiet_prints_nothing():
    assert len(lines_printed(1000, 1000, every=3600)) == 1  # only the final count
    assert lines_printed(2, 2, enabled=False) == []


def test_a_total_known_only_at_the_end_is_shown_when_known():
    out = io.StringIO()
    p = Progress("case", file=out, interactive=False, every=0)
    p.start("reference 0.1.0", None)  # the cases are still loading
    p.update()
    p.set_total(2)
    p.update()
    p.close()
    lines = out.getvalue().splitlines()
    assert "2/2" not in lines[0] and "2/2" in lines[-1]
