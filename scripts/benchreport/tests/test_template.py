# SPDX-License-Identifier: GPL-2.0
"""The templates' rules: no figure outside a placeholder, strict values."""
import contextlib
import io
import os
import tempfile
import unittest

from benchreport import cli, template
from benchreport.template import Template, TemplateError, lint


class Lint(unittest.TestCase):
    def test_every_template_holds_no_figure(self):
        for name in template.names():
            with open(template.path(name), encoding="utf-8") as f:
                self.assertEqual(lint(name, f.read()), [], name)

    def test_a_figure_planted_in_a_template_fails(self):
        with open(template.path("getput"), encoding="utf-8") as f:
            text = f.read().replace("{batch}", "64", 1)
        problems = lint("getput", text)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("getput.md:1: the figure 64", problems[0])

    def test_a_reason_that_restates_a_number_fails(self):
        text = "<!-- why -->\nIn this run the put took 0.96x upstream's.\n"
        self.assertEqual([p.split(": ", 1)[1] for p in lint("x", text)],
                         ["the figure 0: a placeholder's value, not template text",
                          "the figure 96: a placeholder's value, not template text"])

    def test_a_heading_keeps_its_section_number_and_nothing_more(self):
        self.assertEqual(lint("x", "## 4a. Turnover\n"), [])
        self.assertEqual(len(lint("x", "## 4a. Turnover of 512\n")), 1)
        self.assertEqual(len(lint("x", "See section 4a.\n")), 1)

    def test_placeholders_may_hold_digits_in_their_names_only(self):
        self.assertEqual(lint("x", "get {p50} and {{literal}}\n"), [])
        self.assertEqual(len(lint("x", "{0}\n")), 2)      # a brace, and a figure
        self.assertEqual(len(lint("x", "{ratio:.2f}\n")), 2)
        self.assertEqual(len(lint("x", "{a[key]}\n")), 1)

    def test_the_cli_fails_on_a_bad_template(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.md")
            with open(path, "w") as f:
                f.write("A storm of 4,096 reservations.\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(cli.main(["lint", path]), 1)
                self.assertEqual(cli.main(["lint"]), 0)
            self.assertIn("bad.md:1: the figure 4", out.getvalue())


class Render(unittest.TestCase):
    T = Template("t", "# Title\n\n{a}\n\n{b}\n\nend\n<!-- why -->\nwrapped\n  prose {a}\n")

    def test_blocks_and_values(self):
        self.assertEqual(self.T.render("body", {"a": "A", "b": "B"}), "# Title\n\nA\n\nB\n\nend")
        self.assertEqual(self.T.render("why", {"a": "A"}), "wrapped\n  prose A")

    def test_an_empty_value_on_its_own_line_leaves_one_blank_line(self):
        self.assertEqual(self.T.render("body", {"a": "", "b": "B"}), "# Title\n\nB\n\nend")

    def test_a_missing_value_is_an_error_not_a_blank(self):
        with self.assertRaisesRegex(TemplateError, r"t.md, body: no value for \{b\}"):
            self.T.render("body", {"a": "A"})

    def test_a_value_must_be_formatted_text(self):
        with self.assertRaisesRegex(TemplateError, "is a float"):
            self.T.render("body", {"a": "A", "b": 0.5})

    def test_a_bad_brace_fails_at_load(self):
        with self.assertRaises(TemplateError):
            Template("t", "{x.y}\n")
        with self.assertRaises(TemplateError):
            Template("t", "<!-- a -->\n<!-- a -->\n")


if __name__ == "__main__":
    unittest.main()
