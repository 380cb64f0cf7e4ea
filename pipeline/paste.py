"""A log pasted by hand, back to what the program printed (``logml predict`` on a plain-text file).

Issue threads wrap a log in markdown, indent it, hard-wrap it at a console's width, and, from a
notebook (Jupyter, AI Studio), print its traceback the IPython way; a log copied out of a web page's
source has its quotes as HTML entities, one from ``docker logs -t`` a timestamp before every line,
and one exported from a log platform (JSON lines, CSV) holds the lines as messages of records
(pipeline.exports). ``Unpaster`` undoes each of these chunk by chunk, before the normalizer reads
the lines, and keeps every line's own number so evidence cites the file as given.
"""
from __future__ import annotations

import re
from dataclasses import replace

from pipeline.exports import Export


class Unpaster:
    """Markdown around a log pasted by hand (a plain-text file given to `logml predict`).

    Issue threads wrap a log in ```` ``` ```` fences, add a question after it, indent it under a
    list item and end it with the shell prompt that came back. None of that is log output, and at
    the end of a file it hides how the log ended: a healthy run no longer "ends well", a rule that
    wants the last lines sees the question. So fence lines are dropped, and so is the text outside
    the fences: after a closing fence up to the next opening one, and before the first fence when
    the first chunk shows that it opens a block (a second fence follows, or it names a language:
    ```` ```text ````). A lone bare fence may close a paste cut at its start, so the text before it
    stays. A prompt line with no command after it (``user@host:~/work$``, ``root@3f2a:/workspace#``,
    ``C:\\work>``) is dropped; one with a command stays, the command says what ran. An indent that
    every non-blank line of the first chunk shares (3+ characters, or a tab: a list item's or an
    indented code block's, not a traceback frame's two spaces) is removed from every line. A paste
    hard-wrapped at a fixed width (a console copy; see _wrap_width) has its cut lines joined again,
    or a traceback line cut in two matches no signature. A traceback IPython printed is printed
    again as Python prints it (see reprint_notebook_tracebacks). HTML entities (``&quot;``, ``&#39;``,
    ``&gt;`` ...) are decoded when the first chunk has one (few programs print one, and decoding it
    changes nothing a rule looks for): a rule reads ``No module named 'cv2'``, never ``No module
    named &#39;cv2&#39;``. The RFC 3339 timestamp ``docker logs -t`` and ``kubectl logs --timestamps``
    put before every line becomes the line's envelope timestamp, as in a Docker or CRI file. Docker
    and CRI files are a node's own output and are never unpasted, nor is a log too big to be a paste
    (one that is skimmed), nor anything the nightly ingest reads."""

    FENCE = re.compile(r"^[ \t>]*(?:`{3,}|~{3,})[\w+.#-]*[ \t]*$")
    MIN_INDENT = 3
    WRAP_WIDTHS = (60, 250)                  # consoles are no narrower and no wider
    MIN_WRAPPED = 3                          # cut lines that show an unusual width ...
    CONSOLE_WIDTHS = (80, 100, 120, 132, 160)  # ... one is enough at a common console width

    def __init__(self):
        self.first = True       # the first chunk decides on fences, indent and wrap width
        self.inside = False     # between an opening fence and its closing one
        self.closed = False     # a fence has closed: commentary until the next one opens
        self.indent = ""
        self.width = 0
        self.code_fenced = False  # the fences hold the job's code, the log was pasted outside them
        self.escaped = False      # the paste came HTML-escaped
        self.stamped = False      # every line starts with the runtime's timestamp (docker logs -t)
        self.export: Export | None = None   # the file is a log platform's export (pipeline.exports)

    @staticmethod
    def _log_outside_code_fences(lines: list[str], fences: set[int]) -> bool:
        """The fences hold what the user ran (a script, a command) and the log is outside them: a
        traceback or an error line out there, none inside. The text outside is then the log."""
        inside, outside, now = [], [], False
        for i, line in enumerate(lines):
            if i in fences:
                now = not now
            else:
                (inside if now else outside).append(line)
        return not any(map(_LOGLIKE.search, inside)) and any(map(_LOGLIKE.search, outside))

    def feed(self, chunk):
        first, self.first = self.first, False
        if first:
            self.export = Export.detect(chunk.lines)
        if self.export:   # a log platform's export (JSON lines, CSV, a console's stamped text): its messages are the log
            chunk = self.export.unwrap(chunk)
        if first:   # the stamp: the first thousand lines decide (a Python loop over a chunk costs 50 ms)
            self.escaped = _ENTITY.search("\n".join(chunk.lines)) is not None
            written = [ln for ln in chunk.lines[:1000] if ln.strip()]
            self.stamped = len(written) >= 3 and sum(1 for ln in written if _STAMP.match(ln)) >= 0.95 * len(written)
        if self.escaped:
            import html  # here: 2-4 ms of html.entities at start-up for the rare escaped paste
            chunk = replace(chunk, lines=[html.unescape(ln) if "&" in ln else ln for ln in chunk.lines])
        if self.stamped:
            chunk = self._unstamped(chunk)
        lines = chunk.lines
        # most files have no fence, prompt, indent or wrap: each is ruled out by one C-level pass
        text = "\n".join(lines)
        fenced = "```" in text or "~~~" in text
        # a shell prompt with no command: the shell, not the job, speaks
        prompts = {i for i, line in enumerate(lines) if _PROMPT.match(line)} if _PROMPT.search(text) else set()
        keep = [i for i in range(len(lines)) if i not in prompts] if prompts else range(len(lines))
        inside: list[int] = []
        if fenced:
            fences = {i for i, line in enumerate(lines) if self.FENCE.match(line)}
            if first:  # does a fence open the log?
                opening = lines[min(fences)] if fences else ""
                self.closed = len(fences) >= 2 or opening.strip(" \t>`~") != ""
                self.code_fenced = self.closed and self._log_outside_code_fences(lines, fences)
            keep = []
            for i in range(len(lines)):
                if i in fences:
                    self.inside = not self.inside
                    self.closed = self.closed or not self.inside
                elif i not in prompts and (self.inside or not self.closed or self.code_fenced):
                    keep.append(i)
                    if self.inside:
                        inside.append(i)
        if len(keep) < len(lines):
            lines = [lines[i] for i in keep]
        if first:  # inside fences, the log's own indent (the text around has none)
            unindented = not fenced and not prompts and _UNINDENTED.search(text)
            self.indent = "" if unindented else self._common_indent([chunk.lines[i] for i in (inside or keep)])
        if self.indent:
            cut = len(self.indent)
            lines = [ln[cut:] if ln.startswith(self.indent) else ln for ln in lines]
        if first:
            self.width = self._wrap_width(lines)
        notebook = "Traceback (most recent call last)" in text and _IPY_HEADER.search(text) is not None
        if not self.width and len(keep) == len(chunk.lines) and not self.indent and not notebook:
            return chunk
        groups = self._unwrapped(lines) if self.width else [[j] for j in range(len(lines))]
        joined = ["".join(lines[j] for j in g) for g in groups]
        if notebook:
            reprinted = reprint_notebook_tracebacks(joined)
            joined, groups = [text for text, _ in reprinted], [groups[k] for _, k in reprinted]

        def pick(values, at=0):
            return [values[keep[g[at]]] for g in groups] if values else values
        return replace(chunk, lines=joined, line_nos=pick(chunk.line_nos),
                       ts=pick(chunk.ts), streams=pick(chunk.streams), end_offsets=pick(chunk.end_offsets, -1),
                       end_lines=pick(chunk.end_lines, -1))

    @staticmethod
    def _unstamped(chunk):
        """The lines without the runtime's timestamp, which becomes their envelope timestamp."""
        lines, ts = list(chunk.lines), list(chunk.ts) if chunk.ts else [None] * len(chunk.lines)
        for i, line in enumerate(lines):
            m = _STAMP.match(line)
            if m:
                lines[i], ts[i] = line[m.end():], ts[i] or m.group(1)
        return replace(chunk, lines=lines, ts=ts)

    @staticmethod
    def _continued(line: str, after: str, width: int) -> bool:
        """`line` was cut at the wrap width and `after` goes on with it: a cut falls anywhere, a
        line of its own ends a sentence or a call, and the next one opens with an indent or starts
        like this one."""
        return (len(line) == width and _wrappable(line) and line[-1] not in _ENDS_LINE and bool(after)
                and after[:2].strip() and line[:5] != after[:5] and not _FRAME_END.search(line))

    def _unwrapped(self, lines: list[str]) -> list[list[int]]:
        groups: list[list[int]] = []
        for j, line in enumerate(lines):
            if groups and self._continued(lines[groups[-1][-1]], line, self.width):
                groups[-1].append(j)
            else:
                groups.append([j])
        return groups

    @classmethod
    def _wrap_width(cls, lines: list[str]) -> int:
        """The width a paste was hard-wrapped at (a terminal or console copy), else 0: nothing is
        longer than it, and lines that go on in the next one are exactly that long: one at a
        common console width (a short paste has one long line), at least MIN_WRAPPED at another.
        A record printed in one format, one per line, starts the next line like itself, so a
        column of them does not count."""
        import numpy as np
        lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
        if not len(lengths) or lengths.max() < cls.WRAP_WIDTHS[0]:
            return 0
        width = 0
        for n in np.unique(lengths[lengths >= cls.WRAP_WIDTHS[0]])[::-1]:  # the longest, past padded rules
            at = np.flatnonzero(lengths == n)
            if any(_wrappable(lines[j]) for j in at):
                width = int(n)
                break
        if not cls.WRAP_WIDTHS[0] <= width <= cls.WRAP_WIDTHS[1]:
            return 0
        heads = [lines[j][:5] for j in at if j + 1 < len(lines) and cls._continued(lines[j], lines[j + 1], width)]
        if width in cls.CONSOLE_WIDTHS and heads:
            return width
        # at another width, the cut lines are not all one record's: a progress line printed in
        # a fixed format can be the longest line, many times over
        return width if len(heads) >= cls.MIN_WRAPPED and len(set(heads)) > 1 else 0

    @classmethod
    def _common_indent(cls, lines: list[str]) -> str:
        import os
        indents = [ln[:len(ln) - len(ln.lstrip(" \t"))] for ln in lines if ln.strip()]
        common = os.path.commonprefix(indents) if indents else ""
        return common if len(common) >= cls.MIN_INDENT or "\t" in common else ""


_PROMPT = re.compile(r"^[ \t]*(?:\([\w.-]+\) ?)?(?:[\w.-]+@[\w.-]+(?::[^\n$#]*)?|PS [A-Za-z]:\\[^\n>]*"
                     r"|[A-Za-z]:\\[^\n>]*)[$#>] ?$", re.M)   # user@host:~/dir$ , root@3f2a:/w# , C:\x>
_STAMP = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) ")   # RFC 3339, a space
_ENTITY = re.compile(r"&(?:quot|apos|lt|gt|amp|#0*3[49]|#x0*2[27]);")
_UNINDENTED = re.compile(r"^[^ \t\n]", re.M)
# a line only a program's output has (a traceback, an exception, glog's header), never a script's
_LOGLIKE = re.compile(r"Traceback \(most recent call last\)|^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\s*:|"
                      r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ ")
_ENDS_LINE = frozenset(".:;!?)]}'\"")
_FRAME_END = re.compile(r", line \d+, in [\w<>.]+$")   # a Python traceback frame's line is whole


def _wrappable(line: str) -> bool:
    """Not a rule of one repeated character or a table row (both are often padded to a fixed width)."""
    body = line.strip()
    return len(set(body)) > 1 and body[-1] not in "|+"


# ----------------------------------------------------------------------------- notebook tracebacks

# IPython (Jupyter, AI Studio, Colab) prints a traceback its own way: a rule of dashes, the exception
# class padded before "Traceback (most recent call last)", frames as "Cell In[3], line 5" or
# "File /x.py:12, in f(a)" (IPython 8) or "<ipython-input-3-..> in <module>" and "/x.py in f(a)"
# (IPython 7), each with numbered source lines and an arrow at the failing one. The normalizer, the
# rules and the model know Python's own form, so the block is printed again in that form.
# a paste that lost its line breaks glues the rule, the header and the first frame into one line
# (the class as Python names it: OpenCV's is cv2.error, shown as "error")
_IPY_HEADER = re.compile(r"^(?:-{20,}\s*)?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s{2,}Traceback \(most recent call last\)[ \t]*"
                         r"(?!:)([^\n]*)$", re.M)
_IPY_RULE = re.compile(r"^-{20,}\s*$")
_IPY_CELL = re.compile(r"^(Cell In ?\[\d*\]|Input In ?\[\d*\]|<ipython-input-[^>]*>)(?:, line (\d+))?(?:,? in ([^\s(]+))?")
_IPY_FILE = re.compile(r"^File (.+):(\d+), in ([^\s(]+)")                 # IPython 8
_IPY_PATH = re.compile(r"^(\S.*?\.pyx?) in ([^\s(]+)")                   # IPython 7
_IPY_LINKED = re.compile(r"^\[([^\]]+)\]\(\S*\s*(?=in )")                   # Colab: [where](url in f()
_IPY_ARROW = re.compile(r"^-*> ?(\d+)(?: (.*))?$")                        # ----> 5 x = f()
_IPY_SOURCE = re.compile(r"^\s+\d+(?: |$)|^\s*\[\.\.\. skipping")      # context lines, hidden frames


def reprint_notebook_tracebacks(lines: list[str]) -> list[tuple[str, int]]:
    """The lines with every IPython traceback in Python's form, each with the index of the line it
    comes from. A frame is "  File \"where\", line N, in f" and the failing source line; the
    exception line that ends the block, and everything outside blocks, stay as they are. A block cut
    before its exception line ends with the exception class its header named."""
    out: list[tuple[str, int]] = []
    i, n = 0, len(lines)
    while i < n:
        header = _IPY_HEADER.match(lines[i])
        if not header:
            out.append((lines[i], i))
            i += 1
            continue
        if out and _IPY_RULE.match(out[-1][0]):
            out.pop()
        out.append(("Traceback (most recent call last):", i))
        exception, at = header.group(1), i
        pending = header.group(2).strip()   # the first frame, when the paste lost its line breaks
        if not pending:
            i += 1
        frame = None   # [where, line number, function, index in out] until its arrow is seen
        rest, rest_glued = None, False   # the line that ends the block
        while i < n:
            line, glued, pending = pending or lines[i], bool(pending), ""
            head = _frame_head(line)
            if head:
                frame = [*head, len(out)]
                out.append((_frame_line(*head), i))
            elif (arrow := _IPY_ARROW.match(line)) is not None:
                if frame is not None and frame[1] is None:   # IPython 7 gives the number here
                    frame[1] = arrow.group(1)
                    out[frame[3]] = (_frame_line(*frame[:3]), out[frame[3]][1])
                if (arrow.group(2) or "").strip():
                    out.append(("    " + arrow.group(2).strip(), i))
            elif line.strip() and not _IPY_SOURCE.match(line):
                rest, rest_glued = line, glued
                i += glued   # a glued line is not read again: it is added below
                break
            i += 1
        if rest is None or not _names(rest, exception):   # after the frames, in line order
            out.append((exception, out[-1][1]))
        if rest_glued:
            out.append((rest, at))
    return out


def _names(line: str, exception: str) -> bool:
    """`line` is the exception line the header announced ("ValueError: x", "paddle.x.EnforceNotMet")."""
    return line.split(":", 1)[0].strip().rsplit(".", 1)[-1] == exception.rsplit(".", 1)[-1]


def _frame_head(line: str) -> tuple[str, str | None, str] | None:
    line = _IPY_LINKED.sub(r"\1 ", line)
    m = _IPY_CELL.match(line)
    if m:   # a cell's own code: "<module>", or a function the cell defined
        function = m.group(3) or "<module>"
        return m.group(1), m.group(2), "<module>" if function.startswith("<cell") else function
    m = _IPY_FILE.match(line) or _IPY_PATH.match(line)
    if m:
        return (m.group(1), m.group(2), m.group(3)) if m.re is _IPY_FILE else (m.group(1), None, m.group(2))
    return None


def _frame_line(where: str, line_no: str | None, function: str) -> str:
    return f'  File "{where}", line {line_no or 0}, in {function}'
