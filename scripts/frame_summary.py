"""Summaries of a RANKLENS_FRAME_LOG (one frame a line: frame number, unix ms, the app's own
drawing in ms, 1 when work was running, eframe's whole frame in ms or "-"), shared by the
frame-time scripts."""


def rows(path, columns):
    """The log's lines split into fields, those with at least `columns` fields."""
    return [l.split() for l in open(path) if len(l.split()) >= columns]


def summary(ms):
    """'N frames: longest …, p99 …, median …' of frame times in ms ('no frames' when empty)."""
    ms = sorted(ms)
    if not ms:
        return "no frames"
    pick = lambda q: ms[min(len(ms) - 1, int(q * (len(ms) - 1)))]
    return f"{len(ms)} frames: longest {ms[-1]:.1f} ms, p99 {pick(0.99):.1f} ms, median {pick(0.5):.2f} ms"
