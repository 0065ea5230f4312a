"""Vector files written by NumPy and by Python's json module: the fixtures tests/vectors.rs reads
with RankLens's loaders (files from outside, not written by RankLens's own writer).

    scripts/.venv/bin/python scripts/vector_fixtures.py tests/fixtures/vectors
"""
import json
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rows = [[0.1, -0.5, 2.0], [1e-8, 3.25, -7.0]]
np.save(out / "f32.npy", np.array(rows, dtype=np.float32))
(out / "f32.ids.txt").write_text("d1\nd2\n")
np.save(out / "f16.npy", np.array(rows, dtype=np.float16))
np.save(out / "f64.npy", np.array(rows, dtype=np.float64))
with open(out / "f32-v2.npy", "wb") as f:
    np.lib.format.write_array(f, np.array(rows, dtype=np.float32), version=(2, 0))
np.save(out / "big-endian.npy", np.array(rows, dtype=">f4"))
np.save(out / "fortran.npy", np.asfortranarray(np.array(rows, dtype=np.float32)))
np.save(out / "one-row.npy", np.array(rows[0], dtype=np.float32))
np.save(out / "int.npy", np.array([[1, 2, 3]], dtype=np.int64))
with open(out / "python.jsonl", "w") as f:
    f.write(json.dumps({"id": "d1", "vector": rows[0]}) + "\n")
    f.write(json.dumps({"id": 2, "vector": rows[1]}) + "\n")
with open(out / "beir-style.jsonl", "w") as f:
    for i, r in enumerate(rows):
        f.write(json.dumps({"_id": f"doc-{i}", "embedding": r}, indent=None, separators=(",", ":")) + "\n")
print("numpy", np.__version__)
