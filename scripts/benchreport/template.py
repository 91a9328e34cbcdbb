# SPDX-License-Identifier: GPL-2.0
"""The report's prose: Markdown templates, one per scenario (templates/).

Syntax
  {name}          a placeholder: the value of @name, text the scenario's
                  code made (cells.py).  Names only (letters, digits, _),
                  none of str.format's indices, attributes or specs; a
                  placeholder without a value is an error, not a blank.
  {{ and }}       a literal brace.
  <!-- name -->   on a line of its own: the start of the block @name,
                  which runs to the next such line.  The text before the
                  first one is the block "body": the scenario's section.
                  Other blocks are the pieces a scenario picks from (a
                  paragraph only some runs have, a table row, the reason
                  for a miss), rendered into the body's placeholders or
                  into the report's notes.

A rendered block loses its leading and trailing blank lines, and a run of
blank lines in it (a placeholder left empty on a line of its own) becomes
one.  A block used in a note or a reason (one_line()) is one line: its
lines are joined with a space, so that it can be wrapped here as prose is.

No figure in a template (lint(), `python3 -m benchreport lint`): a digit
may appear only inside a placeholder's name, or as the section number
that opens a Markdown heading ("## 4a. Turnover": the "4a").  Every
figure that describes the run, the machine or the code under test comes
from results.json or from design.py through a placeholder.  Numbers spelt
out as words are not looked for: where one is a count of the run ("two
CQs") or of the code (pool.h's "four times"), it is a placeholder too
(cells.words()).

Every template also has the common values (report.Run.common): device,
section_NAME for each scenario (the number of the section its template
opens or follows on in, for "see section N"), first_round and
second_round (round labels), even (a ratio of one).
"""
import functools
import os
import re

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")

PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")
MARKER = re.compile(r"<!-- ([a-z_]+) -->$")
SECTION = re.compile(r"#{1,6} (\d+[a-z]?)\. ")
DIGIT = re.compile(r"\d+")


class TemplateError(Exception):
    pass


def split(name, text):
    """@text's blocks, by name."""
    blocks, cur, lines = {}, "body", []
    for line in text.splitlines():
        m = MARKER.fullmatch(line)
        if m:
            blocks[cur] = "\n".join(lines)
            cur, lines = m.group(1), []
            if cur in blocks:
                raise TemplateError("%s: block %s twice" % (name, cur))
        else:
            lines.append(line)
    blocks[cur] = "\n".join(lines)
    return blocks


def tidy(text):
    """No leading or trailing blank lines, no two blank lines in a row
    (Markdown never needs them; an empty value leaves them)."""
    return re.sub(r"\n[ \t]*(\n[ \t]*)+\n", "\n\n", text).strip("\n")


def fill(text, values, where):
    """@text with its placeholders replaced by @values."""
    def value(m):
        if m.group(1) is None:
            return m.group(0)[0]
        key = m.group(1)
        if key not in values:
            raise TemplateError("%s: no value for {%s}" % (where, key))
        if not isinstance(values[key], str):
            raise TemplateError("%s: {%s} is a %s: the scenario formats its figures"
                                % (where, key, type(values[key]).__name__))
        return values[key]

    return PLACEHOLDER.sub(value, text)


class Template:
    """One template file: its blocks, rendered with a scenario's values."""

    def __init__(self, name, text):
        self.name = name
        self.blocks = split(name, text)
        bad = lint(name, text, figures=False)
        if bad:
            raise TemplateError("; ".join(bad))

    def render(self, block, values):
        """The block @block with @values, tidied."""
        if block not in self.blocks:
            raise TemplateError("%s: no block %s" % (self.name, block))
        return tidy(fill(self.blocks[block], values, "%s.md, %s" % (self.name, block)))

    def sections(self):
        """The section numbers of the headings of the body, in order."""
        return [m.group(1) for m in map(SECTION.match, self.blocks["body"].splitlines())
                if m]


def one_line(text):
    """A rendered block as one line: a note's or a reason's."""
    return " ".join(x.strip() for x in text.splitlines() if x.strip())


def path(name):
    return os.path.join(DIR, name + ".md")


@functools.lru_cache(maxsize=None)
def load(name):
    """The template templates/@name.md."""
    with open(path(name), encoding="utf-8") as f:
        return Template(name, f.read())


def names():
    """Every template's name."""
    return sorted(f[:-3] for f in os.listdir(DIR) if f.endswith(".md"))


def lint(name, text, figures=True):
    """What breaks the rules above in @text: "NAME.md:LINE: what" each;
    the braces alone without @figures."""
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        heading = SECTION.match(line)
        bare = PLACEHOLDER.sub("", line[heading.end():] if heading else line)
        if "{" in bare or "}" in bare:
            problems.append("%s.md:%d: a brace outside a {name} placeholder "
                            "(a literal one is {{ or }})" % (name, n))
        for m in DIGIT.finditer(bare) if figures else ():
            problems.append("%s.md:%d: the figure %s: a placeholder's value, not "
                            "template text" % (name, n, m.group(0)))
    return problems
