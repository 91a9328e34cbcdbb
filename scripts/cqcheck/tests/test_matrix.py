# SPDX-License-Identifier: GPL-2.0
"""vm/matrix.toml and its runner's scheduling: what runs where, and when."""

import os
import tempfile
import threading
import time
import unittest

from cqcheck import matrix, runner

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
MATRIX = os.path.join(TOP, "vm", "matrix.toml")

GOOD = """
[defaults]
accel = "tcg"
vcpus = 2
mem = "2G"
timeout = 1800
cores = 2
modes = ["full", "all"]
kunit = false
races = false

[builds.debug]
kernel = "d"
args = { full = ["N=1"], all = ["N=2"] }

[kernels.s]
name = "6.1"
kind = "stock"
series = "6.1"
about = "stock"

[kernels.d]
name = "6.1-debug"
kind = "debug"
series = "6.1"
about = "debug"

[[run]]
label = "6.1"
kernel = "s"
payload = "tests"
modules = "stock"
tests = { fast = ["a_test"], full = ["a_test"], all = "all" }
modes = ["fast", "full", "all"]
may_skip = { a_test = "no such thing here" }

[[run]]
label = "6.1-debug"
kernel = "d"
payload = "tests"
modules = "debug"
kunit = true
races = { full = false, all = true }
tests = "all"
"""


def written(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    f.write(text)
    f.close()
    return f.name


class Rows(unittest.TestCase):
    def test_the_tree_s_matrix_loads_in_every_mode(self):
        for m in matrix.MODES:
            self.assertTrue(matrix.rows(MATRIX, m), m)
        fast = matrix.rows(MATRIX, "fast")
        self.assertEqual({r.kernel.kind for r in fast}, {"stock"})

    def test_values_by_mode_are_resolved(self):
        p = written(GOOD)
        full = {r.label: r for r in matrix.rows(p, "full")}
        every = {r.label: r for r in matrix.rows(p, "all")}
        self.assertEqual(full["6.1"].tests, ["a_test"])
        self.assertEqual(every["6.1"].tests, "all")
        self.assertFalse(full["6.1-debug"].races)
        self.assertTrue(every["6.1-debug"].races)
        self.assertEqual(full["6.1-debug"].build.args, ["N=1"])
        self.assertEqual(every["6.1-debug"].build.args, ["N=2"])
        self.assertEqual([r.label for r in matrix.rows(p, "fast")], ["6.1"])

    def test_a_key_the_runner_does_not_know_is_an_error(self):
        p = written(GOOD + '\n[[run]]\nlabel = "x"\nkernel = "s"\npayload = "dkms"\nskips = ["a"]\n')
        with self.assertRaisesRegex(matrix.MatrixError, "unknown keys"):
            matrix.rows(p, "full")

    def test_an_unknown_kernel_or_payload_is_an_error(self):
        for bad in ('kernel = "nope"\npayload = "dkms"', 'kernel = "s"\npayload = "nope"'):
            p = written(GOOD + f'\n[[run]]\nlabel = "x"\n{bad}\n')
            with self.assertRaises(matrix.MatrixError):
                matrix.rows(p, "full")

    def test_a_mode_without_its_value_is_an_error(self):
        p = written(GOOD.replace('tests = "all"', 'tests = { all = "all" }'))
        with self.assertRaisesRegex(matrix.MatrixError, "no value for mode full"):
            matrix.rows(p, "full")

    def test_a_tests_row_names_its_modules(self):
        p = written(GOOD + '\n[[run]]\nlabel = "x"\nkernel = "s"\npayload = "tests"\ntests = "all"\n')
        with self.assertRaisesRegex(matrix.MatrixError, "names modules"):
            matrix.rows(p, "full")

    def test_a_kselftest_the_tree_has_not_is_an_error(self):
        row = matrix.rows(written(GOOD), "full")[0]
        with self.assertRaises(matrix.MatrixError):
            matrix.selftests(row, ["b_test"])


class Deb(unittest.TestCase):
    def test_the_tree_s_deb_rows_boot_both_stock_kernels(self):
        rows = [r for r in matrix.rows(MATRIX, "full") if r.payload == "deb"]
        self.assertEqual(sorted(r.kernel.series for r in rows), ["6.1", "6.12"])
        for r in rows:
            self.assertEqual(r.kernel.kind, "stock")
            if r.kernel.series == "6.12":
                self.assertEqual((r.accel, r.cores), ("tcg,thread=single", 1))

    def test_a_deb_row_needs_no_modules_and_is_described(self):
        p = written(GOOD + '\n[[run]]\nlabel = "deb-6.1"\nkernel = "s"\npayload = "deb"\n')
        row = [r for r in matrix.rows(p, "full") if r.label == "deb-6.1"][0]
        self.assertEqual(row.modules, "")
        self.assertIsNone(row.build)
        self.assertIn("the Debian packages, installed and purged by apt",
                      matrix.table(p).splitlines()[2])

    def test_a_deb_row_names_no_tests(self):
        p = written(GOOD + '\n[[run]]\nlabel = "x"\nkernel = "s"\npayload = "deb"\nsoak = 1\n')
        with self.assertRaisesRegex(matrix.MatrixError, "unknown keys"):
            matrix.rows(p, "full")

    def test_a_boot_passes_only_on_the_guest_s_verdict(self):
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "out"))
        log = os.path.join(d, "out", "deb.log")
        with open(log, "w") as f:
            f.write("cqpool-deb: ok: modprobe cqpool\ncqpool-deb: ok: apt purge\ncqpool-deb: PASS\n")
        self.assertEqual(runner.Runner.deb_verdict(d, 0), (True, f"2 checks passed; {log}"))
        # The guest said PASS but the boot failed (a splat): no pass.
        self.assertEqual(runner.Runner.deb_verdict(d, 97),
                         (False, f"the guest passed, the boot did not: status 97; see {log}"))
        with open(log, "w") as f:
            f.write("cqpool-deb: ok: apt install\ncqpool-deb: FAIL: modprobe cqpool\n"
                    "cqpool-deb: FAIL\n")
        self.assertEqual(runner.Runner.deb_verdict(d, 1), (False, f"modprobe cqpool; see {log}"))
        os.remove(log)
        self.assertEqual(runner.Runner.deb_verdict(d, 125),
                         (False, f"status 125, no verdict; see {log}"))


class Expect(unittest.TestCase):
    def test_skips_and_suites_are_expected(self):
        p = written(GOOD)
        rows = {r.label: r for r in matrix.rows(p, "all")}
        text = matrix.expect(rows["6.1"], ["a_test", "b_test"], os.path.join(TOP, "kunit"))
        self.assertEqual(text, "kselftest:a_test may-skip: no such thing here\nkselftest:b_test\n")
        text = matrix.expect(rows["6.1-debug"], ["a_test"], os.path.join(TOP, "kunit"))
        self.assertIn("kunit:cqpool_pools\n", text)
        self.assertIn("races:", text)


class Table(unittest.TestCase):
    def test_a_line_a_kernel_with_the_reasons(self):
        t = matrix.table(written(GOOD))
        lines = t.splitlines()
        self.assertEqual(len(lines), 4)
        self.assertIn("`a_test` may skip: no such thing here.", lines[2])
        self.assertIn("KUnit, the removal races, every kselftest", lines[3])


class Scheduling(unittest.TestCase):
    def test_rows_take_the_cores_in_their_order_and_none_passes_a_waiting_one(self):
        cores = runner.Cores(2)
        got = []
        cores.acquire(9, 1)             # something holds one core

        def row(order, n, hold):
            cores.acquire(order, n)
            got.append(order)
            time.sleep(hold)
            cores.release(n)

        t0 = threading.Thread(target=row, args=(0, 2, 0.05))
        t0.start()
        time.sleep(0.05)                # row 0 waits for two cores
        t1 = threading.Thread(target=row, args=(1, 1, 0.05))
        t1.start()
        time.sleep(0.1)
        self.assertEqual(got, [])       # row 1 would fit, and waits
        cores.release(1)
        t0.join()
        t1.join()
        self.assertEqual(got, [0, 1])

    def test_two_rows_of_a_core_both_go_when_two_come_free(self):
        # The second row may look before the first has taken its core,
        # see that it is not first, and wait: the first must tell it.
        # Tried often enough for that order to come up.
        for _ in range(30):
            cores = runner.Cores(2)
            cores.acquire(9, 2)         # something holds both
            both = threading.Barrier(2, timeout=1)

            def row(order):
                cores.acquire(order, 1)
                both.wait()             # the two run at once, or time out
                cores.release(1)

            rows = [threading.Thread(target=row, args=(o,), daemon=True) for o in (1, 0)]
            for t in rows:
                t.start()
            time.sleep(0.005)
            cores.release(2)
            for t in rows:
                t.join(2)
            self.assertFalse(both.broken or any(t.is_alive() for t in rows),
                             "a row waited while its core was free")

    def test_a_row_that_takes_its_cores_tells_the_others(self):
        cores = runner.Cores(2)
        told = []
        notify = cores.cv.notify_all
        cores.cv.notify_all = lambda: (told.append(1), notify())
        cores.acquire(0, 1)
        self.assertEqual(told, [1])

    def test_a_ready_row_goes_while_an_earlier_one_prepares(self):
        cores = runner.Cores(2)
        self.assertEqual(cores.acquire(5, 2), 2)   # row 0 is not waiting yet
        cores.release(2)

    def test_a_row_never_asks_for_more_than_there_is(self):
        cores = runner.Cores(2)
        self.assertEqual(cores.acquire(0, 4), 2)


if __name__ == "__main__":
    unittest.main()
