"""The errors table of the text-to-SQL measurement: 220 rows with the sample corpus's schema
(code, meaning, added_in, stops_sync, severity, fix, passage), written once and committed as
tests/fixtures/text-to-sql/errors.csv. Its first five rows are the sample's own; the rest are drawn
from the same kinds of error with a fixed seed, so the file is the same on every run.

    python3 scripts/errors_fixture.py > tests/fixtures/text-to-sql/errors.csv
"""
import csv
import random
import sys

SAMPLE = [
    ("E104", "sync token expired, sign in again", "3.2", 1, "error", "Sign in again on the device", "errors-2"),
    ("E140", "file larger than 2 GB refused by the server", "4.1", 0, "error", "Split the file or exclude it", "errors-3"),
    ("E150", "file name has characters the server rejects", "4.9", 0, "warning", "Rename the file", "errors-6"),
    ("E180", "local disk is full", "4.2", 1, "error", "Free disk space", "errors-4"),
    ("E210", "the e2e-encrypt plugin failed to load libsodium", "4.10", 1, "error", "Reinstall the plugin", "errors-5"),
]
KINDS = {
    "account": (["session expired on {d}", "two-factor code rejected on {d}", "account locked after failed sign-ins on {d}",
                 "licence seat limit reached on {d}"], ["Sign in again", "Ask an administrator", "Reset the password"]),
    "network": (["connection to the server timed out on {d}", "proxy refused the connection on {d}",
                 "TLS certificate not trusted on {d}", "server unreachable from {d}"],
                ["Check the network", "Set the proxy in Settings", "Install the company certificate"]),
    "storage": (["quota exceeded for {d}", "local cache corrupted on {d}", "folder moved while syncing on {d}",
                 "disk not writable on {d}"], ["Free space or upgrade the plan", "Clear the cache", "Choose the folder again"]),
    "file": (["file locked by another program on {d}", "path longer than 260 characters on {d}",
              "file changed during upload on {d}", "symbolic link skipped on {d}"],
             ["Close the program", "Shorten the path", "Retry later"]),
    "plugin": (["the {p} plugin crashed on {d}", "the {p} plugin is incompatible with this version on {d}",
                "the {p} plugin was disabled by policy on {d}"], ["Update the plugin", "Reinstall the plugin", "Ask an administrator"]),
}
DEVICES = ["the desktop app", "the phone app", "the tablet app", "the web app"]
PLUGINS = ["share-links", "e2e-encrypt", "photo-backup", "office-preview"]
VERSIONS = ["3.0", "3.1", "3.2", "4.0", "4.1", "4.2", "4.9", "4.10", "5.0", "5.1"]
SEVERITIES = ["error", "error", "warning", "info"]

rng = random.Random(20261206)
taken = {row[0] for row in SAMPLE}
rows = list(SAMPLE)
for n in range(100, 330):
    code = f"E{n}"
    if code in taken or len(rows) >= 220:
        continue
    kind = rng.choice(sorted(KINDS))
    meanings, fixes = KINDS[kind]
    meaning = rng.choice(meanings).format(d=rng.choice(DEVICES), p=rng.choice(PLUGINS))
    severity = rng.choice(SEVERITIES)
    stops = 1 if severity == "error" and rng.random() < 0.5 else 0
    passage = f"errors-{rng.randint(7, 40)}" if rng.random() < 0.15 else ""
    rows.append((code, meaning, rng.choice(VERSIONS), stops, severity, rng.choice(fixes), passage))
rows.sort(key=lambda r: int(r[0][1:]))
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(["code", "meaning", "added_in", "stops_sync", "severity", "fix", "passage"])
w.writerows(rows)
