#!/usr/bin/env python3
"""Checks that the Simplified Chinese documents name the same sections as their English originals.

Every heading of a Chinese file ends with the English heading it translates as an HTML comment:

    ## 从负载倒推硬件 <!-- en: Choose hardware backwards from the workload -->

For README.zh-CN.md (against README.md) and each docs/zh/NAME.md (against docs/NAME.md) the
sequence of (level, English heading) taken from the comments must equal the sequence of headings
of the English file. Every missing, extra or reordered section is listed, as is a Chinese heading
without its comment, a required translation that does not exist and a relative link that points
at no file. Headings inside fenced code blocks are not headings. The fenced code blocks (commands
and program output, which are never translated) must be the English file's, in order. Exit status
0 when every file is in step, 1 otherwise. With --sync-blocks, the Chinese files' fenced blocks are
first replaced by the English ones (after scripts/readme-examples.py regenerates the README's).
Usage: scripts/check-zh-docs.py [--sync-blocks] [SOURCE_DIR]  (default: this checkout)
"""
import difflib
import os
import re
import sys

# The guides users start with; each must have a translation (issue 33). Other docs/zh/*.md files
# are checked the same way when they exist.
REQUIRED_GUIDES = ["plan", "infer", "train", "offload", "calibrate", "monitor", "compare"]

HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
EN_COMMENT = re.compile(r"^(.*?)[ \t]*<!--[ \t]*en:[ \t]*(.*?)[ \t]*-->$")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def strip_closing_hashes(text):
    """'Title ##' -> 'Title' (CommonMark's optional closing sequence)."""
    return re.sub(r"[ \t]+#+$", "", text).strip()


def prose_lines(path):
    """(line number, text) of each line outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if m:
                mark = m.group(1)
                if fence is None:
                    fence = mark
                elif (mark[0] == fence[0] and len(mark) >= len(fence)
                      and not line.strip()[len(mark):]):
                    fence = None
                continue
            if fence is None:
                yield number, line


def fenced_blocks(lines):
    """[(first line index, last line index)] of each fenced code block of `lines` (fences included)."""
    blocks, fence, start = [], None, 0
    for i, line in enumerate(lines):
        m = FENCE.match(line.rstrip("\n"))
        if not m:
            continue
        mark = m.group(1)
        if fence is None:
            fence, start = mark, i
        elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):]:
            blocks.append((start, i))
            fence = None
    return blocks


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.readlines()


def compare_blocks(zh_path, en_path, problems, sync):
    zh, en = read_lines(zh_path), read_lines(en_path)
    zb, eb = fenced_blocks(zh), fenced_blocks(en)
    if len(zb) != len(eb):
        problems.append(f"{zh_path}: {len(zb)} fenced code block(s), {en_path} has {len(eb)}")
        return
    if sync:
        for (za, zz), (ea, ee) in reversed(list(zip(zb, eb))):
            zh[za:zz + 1] = en[ea:ee + 1]
        with open(zh_path, "w", encoding="utf-8") as f:
            f.writelines(zh)
        return
    for n, ((za, zz), (ea, ee)) in enumerate(zip(zb, eb), 1):
        if zh[za:zz + 1] != en[ea:ee + 1]:
            problems.append(f"{zh_path}:{za + 1}: fenced block {n} differs from {en_path}:{ea + 1} "
                            "(commands and output are copied, not translated: "
                            "scripts/check-zh-docs.py --sync-blocks)")


def headings(path):
    """(line number, level, text) of each ATX heading outside fenced code blocks."""
    out = []
    for number, line in prose_lines(path):
        m = HEADING.match(line)
        if m:
            out.append((number, len(m.group(1)), (m.group(2) or "").strip()))
    return out


def english_sections(path):
    return [(level, strip_closing_hashes(text)) for _, level, text in headings(path)]


def chinese_sections(path, problems):
    """The (level, English heading) of each Chinese heading; a heading without one is a problem."""
    out = []
    for number, level, text in headings(path):
        m = EN_COMMENT.match(text)
        if not m or not m.group(2):
            problems.append(f"{path}:{number}: heading without '<!-- en: ... -->': {text!r}")
            continue
        if not strip_closing_hashes(m.group(1)):
            problems.append(f"{path}:{number}: heading has the English comment but no Chinese text")
        out.append((level, m.group(2)))
    return out


def show(section):
    level, text = section
    return f"{'#' * level} {text}"


def compare(zh_path, en_path, problems):
    en = english_sections(en_path)
    zh = chinese_sections(zh_path, problems)
    if en == zh:
        return
    missing, extra = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=en, b=zh, autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            missing.extend(en[i1:i2])
        if op in ("insert", "replace"):
            extra.extend(zh[j1:j2])
    for s in missing:
        other_level = next((e for e in extra if e[1] == s[1] and e[0] != s[0]), None)
        if other_level:
            extra.remove(other_level)
            problems.append(f"{zh_path}: heading level {other_level[0]} where {en_path} has "
                            f"{s[0]}: {show(s)}")
        elif s in extra:
            extra.remove(s)
            problems.append(
                f"{zh_path}: section out of order (English order: {en_path}): {show(s)}")
        else:
            problems.append(f"{zh_path}: missing section that {en_path} has: {show(s)}")
    for s in extra:
        problems.append(f"{zh_path}: section that {en_path} does not have: {show(s)}")


def check_links(path, problems):
    """Relative links (the target file, without its #anchor) must name an existing file."""
    base = os.path.dirname(path)
    for number, line in prose_lines(path):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            file_part = target.split("#", 1)[0]
            if file_part and not os.path.exists(os.path.join(base, file_part)):
                problems.append(f"{path}:{number}: link to a file that does not exist: {target}")


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args = sys.argv[1:]
    sync = "--sync-blocks" in args
    args = [a for a in args if a != "--sync-blocks"]
    root = os.path.abspath(args[0] if args else here)
    os.chdir(root)  # the messages name files relative to the checkout
    problems = []
    pairs = [("README.zh-CN.md", "README.md")]
    zh_dir = os.path.join("docs", "zh")
    names = set(REQUIRED_GUIDES)
    if os.path.isdir(zh_dir):
        names |= {n[:-3] for n in os.listdir(zh_dir) if n.endswith(".md")}
    for name in sorted(names):
        pairs.append((os.path.join(zh_dir, name + ".md"), os.path.join("docs", name + ".md")))
    checked = 0
    for zh_path, en_path in pairs:
        if not os.path.exists(zh_path):
            problems.append(f"{zh_path}: missing translation of {en_path}")
            continue
        if not os.path.exists(en_path):
            problems.append(f"{zh_path}: no English original {en_path}")
            continue
        compare(zh_path, en_path, problems)
        compare_blocks(zh_path, en_path, problems, sync)
        check_links(zh_path, problems)
        checked += 1
    for p in problems:
        print(p)
    if problems:
        print(f"check-zh-docs: {len(problems)} problem(s) in {len(pairs)} Chinese document(s)")
        return 1
    print(f"check-zh-docs: {checked} Chinese document(s) name the same sections as the English")
    return 0


if __name__ == "__main__":
    sys.exit(main())
