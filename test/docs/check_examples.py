#!/usr/bin/python3
"""Run the psql examples of the documentation and compare their output with the page.

    /usr/bin/python3 test/docs/check_examples.py [--update] doc/reference.md ...

Every block fenced with ```psql in a page is a psql transcript: the input lines (SQL statements,
psql meta-commands, comments) each followed by what psql printed.  This script takes the input
lines of each block, runs them with `psql -X -a` (echo every input line, as pg_regress does)
in a fresh database per page, where the page's blocks run in order (tables made by one block are
seen by the next), and compares psql's output with the block.  So a page cannot drift from what
the extension does: a changed message, result or plan fails the test command.

Errors run with VERBOSITY verbose, so the SQLSTATE is printed after `ERROR:`; psql's
`LOCATION:` lines (source file and line of the server) and its `psql:<stdin>:N:` prefixes are
dropped.  `Time: ... ms` lines (from \\timing) match any time.

The server is the one of the standard libpq environment (PGHOST, PGPORT, PGUSER); each page gets
the database bsdoc_<page> (created from template0 with the C locale, dropped afterwards), with
TimeZone UTC and DateStyle ISO.

A block whose output differs between PostgreSQL versions (a plan that the server prints in
another way) is given once per version range, fenced with ```psql pgA-B (versions A to B) or
```psql pgA+ (A and later); only the blocks for the server's version run, the others are
skipped and not counted.

--update rewrites the blocks with the output psql printed (review the diff before committing).
The last line printed is `docs: N passed, M failed` (one test per block); the exit status is 1
when a block differs.
"""

import difflib
import os
import re
import subprocess
import sys

# ```psql, or ```psql pgA-B / ```psql pgA+ for a block of some server versions only
FENCE = re.compile(r"^```psql(?:\s+pg([0-9]+)(?:(\+)|-([0-9]+)))?\s*$")

# The first line of an input statement or meta-command.  Anything else outside a statement is
# output.  A wrong guess cannot pass: the rerun's echo would differ from the page.
INPUT_START = re.compile(
    r"^(SELECT|WITH|CREATE|INSERT|UPDATE|DELETE|SET|RESET|TABLE|VALUES|EXPLAIN|ALTER|DROP|"
    r"COPY|BEGIN|COMMIT|ROLLBACK|START|SAVEPOINT|ANALYZE|VACUUM|PREPARE|EXECUTE|DEALLOCATE|DO|"
    r"GRANT|REVOKE|SHOW|TRUNCATE|COMMENT|REFRESH|DISCARD|\\|--)"
)
# A command tag that psql prints after a statement (it is output, though it looks like input).
COMMAND_TAG = re.compile(
    r"^(SELECT [0-9]+|INSERT 0 [0-9]+|UPDATE [0-9]+|DELETE [0-9]+|COPY [0-9]+|"
    r"(CREATE|DROP|ALTER|COMMENT|GRANT|REVOKE|SET|RESET|BEGIN|COMMIT|ROLLBACK|START|SAVEPOINT|"
    r"ANALYZE|VACUUM|PREPARE|DEALLOCATE|DO|TRUNCATE|REFRESH|DISCARD)( [A-Z]+)*)$"
)
# A table separator line, which starts like a comment.
SEPARATOR = re.compile(r"^-[-+]*$|^-\[ RECORD")
TIME_LINE = re.compile(r"^Time: [0-9.]+ ms")
PSQL_PREFIX = re.compile(r"^psql:<stdin>:[0-9]+: ")


def split_input(lines):
    """The input lines of a transcript, in order."""
    out = []
    in_statement = False
    for line in lines:
        if in_statement:
            out.append(line)
        elif INPUT_START.match(line) and not COMMAND_TAG.match(line) and not SEPARATOR.match(line):
            out.append(line)
            if line.startswith("\\") or line.startswith("--"):
                continue
            in_statement = True
        else:
            continue
        # a statement ends at a line ending with ';' (a trailing -- comment allowed)
        if in_statement and re.search(r";\s*(--.*)?$", line):
            in_statement = False
    return out


def psql(args, stdin=None, check=True):
    p = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"] + args, input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and p.returncode != 0:
        sys.exit("check_examples: psql %s failed:\n%s" % (" ".join(args), p.stdout))
    return p.stdout


def run_block(db, input_lines):
    env = dict(os.environ)
    env["PGOPTIONS"] = "-c TimeZone=UTC -c DateStyle=ISO,MDY -c client_min_messages=notice"
    p = subprocess.run(["psql", "-X", "-a", "-v", "VERBOSITY=verbose", "-d", db, "-f", "-"],
                       input="\n".join(input_lines) + "\n", stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env)
    lines = []
    for line in p.stdout.splitlines():
        line = PSQL_PREFIX.sub("", line)
        if line.startswith("LOCATION:  "):
            continue
        lines.append(line)
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def same(expected, actual):
    if len(expected) != len(actual):
        return False
    for e, a in zip(expected, actual):
        if e != a and not (TIME_LINE.match(e) and TIME_LINE.match(a)):
            return False
    return True


# Every object of the extension, as (kind, name, what an example must contain).  Functions that
# implement a type's I/O, an aggregate's steps, a hash operator class, a cast or an operator (its
# function, or its selectivity estimators) are covered by the example of their type, aggregate,
# cast or operator.
CATALOG_SQL = r"""
WITH members AS (
  SELECT d.classid, d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
  WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'bloomsketch'),
support AS (
  SELECT unnest(ARRAY[typinput, typoutput, typreceive, typsend]) AS f FROM pg_type
  UNION SELECT unnest(ARRAY[aggtransfn, aggfinalfn, aggcombinefn, aggserialfn, aggdeserialfn])
  FROM pg_aggregate
  UNION SELECT amproc FROM pg_amproc
  UNION SELECT castfunc FROM pg_cast
  UNION SELECT oprcode FROM pg_operator
  UNION SELECT oprrest FROM pg_operator
  UNION SELECT oprjoin FROM pg_operator)
SELECT 'type', t.typname, t.typname FROM members m JOIN pg_type t ON t.oid = m.objid
  WHERE m.classid = 'pg_type'::regclass AND t.typtype <> 'p' AND t.typname NOT LIKE '\_%'
UNION
SELECT CASE WHEN p.prokind = 'a' THEN 'aggregate' ELSE 'function' END, p.proname, p.proname
  FROM members m JOIN pg_proc p ON p.oid = m.objid
  WHERE m.classid = 'pg_proc'::regclass AND p.oid NOT IN (SELECT f FROM support)
UNION
SELECT 'operator', format('%s %s %s', o.oprleft::regtype, o.oprname, o.oprright::regtype), o.oprname
  FROM members m JOIN pg_operator o ON o.oid = m.objid
  WHERE m.classid = 'pg_operator'::regclass
UNION
SELECT 'cast', format('%s::%s', c.castsource::regtype, c.casttarget::regtype),
       '::' || c.casttarget::regtype
  FROM members m JOIN pg_cast c ON c.oid = m.objid
  WHERE m.classid = 'pg_cast'::regclass
ORDER BY 1, 2
"""


def check_coverage(db, blocks):
    """Every object of the extension appears in a checked example of the page."""
    rows = psql(["-d", db, "-At", "-F", "\t", "-c", CATALOG_SQL]).splitlines()
    missing = []
    for row in rows:
        kind, name, needle = row.split("\t")
        if kind in ("function", "aggregate", "type"):
            found = any(re.search(r"\b%s\b" % re.escape(needle), b) for b in blocks)
        elif kind == "operator":
            # the operator in a block that uses its sketch type
            # split on the operator: key types may be several words (double precision)
            left, right = name.split(" %s " % needle, 1)
            sketch = right if left in ("anyelement", "text") else left
            found = any(needle in b and sketch in b for b in blocks)
        else:
            found = any(needle in b for b in blocks)
        if not found:
            missing.append("%s %s" % (kind, name))
    return len(rows), missing


def server_major():
    """The server's major version (15, 17, ...)."""
    return int(psql(["-d", "postgres", "-At", "-c", "SHOW server_version_num"]).strip()) // 10000


def for_version(fence, major):
    """Whether the block of this fence runs on a server of this major version."""
    low, plus, high = fence.groups()
    if low is None:
        return True
    if plus:
        return major >= int(low)
    return int(low) <= major <= int(high)


def check_page(path, update, major):
    text = open(path, encoding="utf-8").read().split("\n")
    page = os.path.splitext(os.path.basename(path))[0]
    db = "bsdoc_" + re.sub(r"[^a-z0-9_]", "_", page.lower())
    psql(["-d", "postgres", "-c", "DROP DATABASE IF EXISTS %s" % db])
    psql(["-d", "postgres", "-c",
          "CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" % db])
    psql(["-d", db, "-c", "CREATE EXTENSION bloomsketch"])
    passed = failed = skipped = 0
    out = []
    blocks = []
    i = 0
    while i < len(text):
        line = text[i]
        out.append(line)
        i += 1
        fence = FENCE.match(line.strip())
        if not fence:
            continue
        start = i
        while i < len(text) and text[i].strip() != "```":
            i += 1
        if i == len(text):
            sys.exit("check_examples: %s:%d: unterminated ```psql block" % (path, start))
        expected = text[start:i]
        while expected and expected[-1] == "":
            expected.pop()
        blocks.append("\n".join(expected))
        if not for_version(fence, major):
            skipped += 1
            out.extend(expected)
            continue
        inputs = split_input(expected)
        if not inputs:
            sys.exit("check_examples: %s:%d: a ```psql block without input" % (path, start))
        actual = run_block(db, inputs)
        if same(expected, actual):
            passed += 1
            out.extend(expected)
        else:
            failed += 1
            out.extend(actual)
            if not update:
                print("FAIL %s:%d" % (path, start))
                for d in difflib.unified_diff(expected, actual, "page", "psql", lineterm="", n=2):
                    print("    " + d)
    if page == "reference":
        n, missing = check_coverage(db, blocks)
        if missing:
            failed += 1
            print("FAIL %s: %d of %d objects of the extension have no example:" % (path, len(missing), n))
            for m in missing:
                print("    " + m)
        else:
            passed += 1
        print("%s: all %d objects of the extension have a checked example" % (path, n)
              if not missing else "")
    psql(["-d", "postgres", "-c", "DROP DATABASE IF EXISTS %s" % db])
    if update and failed:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(out))
        print("%s: %d blocks rewritten" % (path, failed))
    print("%s: %d blocks, %d differ%s" % (path, passed + failed, failed,
                                         ", %d for other server versions skipped" % skipped
                                         if skipped else ""))
    return passed, failed


def main(argv):
    update = False
    if argv and argv[0] == "--update":
        update = True
        argv = argv[1:]
    if not argv:
        sys.exit(__doc__)
    passed = failed = 0
    major = server_major()
    for path in argv:
        p, f = check_page(path, update, major)
        passed += p
        failed += f
    if update:
        failed = 0
    print("docs: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
