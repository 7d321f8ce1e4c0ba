"""The one way a Python test file of svc ends: `runner.main()` instead of
`unittest.main()`.

unittest exits 0 when tests were skipped, so ctest would print "Passed" for
a file that tested nothing. Here a file whose tests all passed exits 0, a
file with any failure or error exits 1, and a file that passed but skipped
something exits SKIP_EXIT (77), which tests/CMakeLists.txt declares as the
SKIP_RETURN_CODE: ctest then reports the file as "Skipped" (under "did not run"), and
its output names each skipped test with the reason. A file that ran no test
at all fails.

A skip is only for a condition outside the project (not root, an older
systemd-analyze); a prerequisite that scripts/install-deps.sh installs or
that the build makes is asserted, so its absence fails.
"""

import sys
import unittest

SKIP_EXIT = 77


def main():
    program = unittest.main(verbosity=2, exit=False)
    result = program.result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun == 0 and not result.skipped:
        print("runner: no test ran", file=sys.stderr)
        sys.exit(1)
    if result.skipped:
        print("runner: %d skipped (exit %d: ctest reports the file as Skipped):" % (len(result.skipped), SKIP_EXIT),
              file=sys.stderr)
        for test, reason in result.skipped:
            print("  SKIPPED %s: %s" % (test, reason), file=sys.stderr)
        sys.exit(SKIP_EXIT)
    sys.exit(0)
