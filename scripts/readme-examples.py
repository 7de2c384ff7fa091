#!/usr/bin/env python3
"""Regenerates the README's worked examples from the built binary, so they stay real output.

Each example is a line '**N. Title** — `build/memwall ARGS` (first K lines ...' followed by a
fenced block; the block is replaced by what the command prints now (its first K lines when the
line says so). The accuracy block after '`build/memwall validate`' gets the summary table of
`build/memwall validate`. Usage: scripts/readme-examples.py  (after scripts/build.sh)
"""
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args):
    out = subprocess.run(["build/memwall", *args], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"readme-examples: `memwall {' '.join(args)}` exited {out.returncode}: {out.stderr}")
    return out.stdout


def replace_block(lines, start, text):
    """Replaces the fenced block that follows line `start` with `text`."""
    i = start + 1
    while not lines[i].startswith("```"):
        i += 1
    j = i + 1
    while not lines[j].startswith("```"):
        j += 1
    return lines[: i + 1] + [l + "\n" for l in text.rstrip("\n").split("\n")] + lines[j:]


def main():
    path = os.path.join(ROOT, "README.md")
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    example = re.compile(r"^\*\*\d+\. .*?`build/memwall ([^`]+)`(?: \(first (\d+) lines)?")
    k = 0
    while k < len(lines):
        m = example.match(lines[k])
        if m:
            text = run(shlex.split(m.group(1)))
            if m.group(2):
                text = "\n".join(text.split("\n")[: int(m.group(2))])
            lines = replace_block(lines, k, text)
        elif lines[k].startswith("`build/memwall validate` runs the published measured cases"):
            report = run(["validate"])
            start = re.search(r"^kind +predicted .*$", report, re.M).start()
            table = report[start:].split("\n\n")[0]
            lines = replace_block(lines, k, table)
        k += 1
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    print("readme-examples: README.md examples regenerated")
    # The Chinese README carries the same blocks (commands and output are not translated).
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check-zh-docs.py"),
                    "--sync-blocks", ROOT], check=True)


if __name__ == "__main__":
    main()
