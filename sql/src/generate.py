#!/usr/bin/python3
"""Generate the install and upgrade scripts sql/bloomsketch--*.sql from sql/src/.

    python3 sql/src/generate.py            # rewrite the scripts
    python3 sql/src/generate.py --check    # exit 1, with a diff, if a script is not what
                                           # its sources generate (the test command runs this)
    python3 sql/src/generate.py --self-test  # the directives' errors, on scripts made up for
                                           # it (the test command runs this too)

Sources:
  key_types             one line per SQL key type that gets concrete aggregate overloads:
                        `VERSION TYPE`, e.g. `1.0 double precision`, in the order the overloads
                        appear.  VERSION is the extension version that added the type.
  overloads.sql         the overloads of one key type for each aggregate, as templates:
                            -- @template NAME VERSION
                            CREATE AGGREGATE NAME(@T@, ...) (...);
                            COMMENT ON AGGREGATE NAME(@T@, ...) IS '...';
                            -- @end
                        VERSION is the extension version that added the aggregate; @T@ is
                        replaced by the key type.
  bloomsketch--V.sql.in, bloomsketch--A--V.sql.in
                        a script of version V, copied line by line, except:
                          -- @overloads NAME   the template NAME (added in V) for every key type
                                               of version V or earlier
                          -- @overloads NAME except T1, T2
                                               the same but for the key types listed
                          -- @new-key-types    every template added before V, for each key type
                                               added in V (what an upgrade to V must create)

So adding a key type in a new version V is one line in key_types (and one in the C table of
key families, src/keys.c) plus `-- @new-key-types` in the upgrade script's source; adding an
aggregate is one template and one `-- @overloads` line.  Released scripts never change: the
check makes sure regenerating them gives the same bytes.
"""
import difflib
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)


def vkey(v):
    return tuple(int(x) for x in v.split("."))


def read_key_types():
    types = []
    with open(os.path.join(HERE, "key_types")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            version, name = line.split(None, 1)
            types.append((vkey(version), name))
    return types


def read_templates():
    templates = []  # (name, version, body lines), in file order
    cur = None
    with open(os.path.join(HERE, "overloads.sql")) as f:
        for n, line in enumerate(f, 1):
            m = re.match(r"-- @template (\S+) (\S+)$", line.rstrip("\n"))
            if m:
                if cur:
                    sys.exit(f"overloads.sql:{n}: @template inside @template {cur[0]}")
                cur = (m.group(1), vkey(m.group(2)), [])
            elif line.rstrip("\n") == "-- @end":
                if not cur:
                    sys.exit(f"overloads.sql:{n}: @end without @template")
                templates.append(cur)
                cur = None
            elif cur:
                cur[2].append(line)
    if cur:
        sys.exit(f"overloads.sql: template {cur[0]} has no @end")
    return templates


def expand(template, types):
    return "".join(line.replace("@T@", t) for t in types for line in template[2])


def generate(src, types, templates, srcdir=HERE):
    version = vkey(re.match(r"bloomsketch--(?:[\d.]+--)?([\d.]+)\.sql\.in$", src).group(1))
    by_name = {t[0]: t for t in templates}
    out = []
    with open(os.path.join(srcdir, src)) as f:
        for n, line in enumerate(f, 1):
            m = re.match(r"-- @overloads (\S+)(?: except (.+))?$", line.rstrip("\n"))
            if m:
                t = by_name.get(m.group(1))
                if t is None or t[1] != version:
                    sys.exit(f"{src}:{n}: no template {m.group(1)} added in this version")
                skip = [x.strip() for x in (m.group(2) or "").split(",") if x.strip()]
                unknown = [x for x in skip if x not in [name for v, name in types]]
                if unknown:
                    sys.exit(f"{src}:{n}: except names no key type: {', '.join(unknown)}")
                out.append(expand(t, [name for v, name in types if v <= version and name not in skip]))
            elif line.rstrip("\n") == "-- @new-key-types":
                new = [name for v, name in types if v == version]
                out.extend(expand(t, new) for t in templates if t[1] < version)
            else:
                out.append(line)
    return "".join(out)


def self_test():
    """Each directive on a made-up script of version 1.0: what it generates, or its error."""
    types, templates = read_key_types(), read_templates()
    first = [name for v, name in types if v == (1, 0)]
    failed = 0

    def run(directive):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "bloomsketch--1.0.sql.in"), "w") as f:
                f.write("-- before\n" + directive + "\n-- after\n")
            try:
                return generate("bloomsketch--1.0.sql.in", types, templates, d), None
            except SystemExit as e:
                return None, str(e.code)

    def check(ok, what):
        nonlocal failed
        failed += not ok
        print(("ok - " if ok else "not ok - ") + what)

    text, err = run("-- @overloads bloom_agg")
    check(err is None and all(f"CREATE AGGREGATE bloom_agg({t})" in text for t in first),
          f"@overloads bloom_agg makes bloom_agg for the {len(first)} key types of 1.0")
    text, err = run(f"-- @overloads bloom_agg except {first[0]}, {first[1]}")
    check(err is None and f"CREATE AGGREGATE bloom_agg({first[0]})" not in text
          and f"CREATE AGGREGATE bloom_agg({first[1]})" not in text
          and f"CREATE AGGREGATE bloom_agg({first[2]})" in text,
          f"except {first[0]}, {first[1]} leaves out just those two")
    text, err = run("-- @overloads bloom_agg except nosuchtype")
    check(text is None and err == "bloomsketch--1.0.sql.in:2: except names no key type: nosuchtype",
          f"except naming an unknown type is refused ({err})")
    text, err = run("-- @overloads nosuchtemplate")
    check(text is None and err == "bloomsketch--1.0.sql.in:2: no template nosuchtemplate added in this version",
          f"an unknown template is refused ({err})")
    text, err = run("-- @overloads cbloom_agg")
    check(text is None and "no template cbloom_agg added in this version" in (err or ""),
          f"a template of another version is refused ({err})")
    print(f"generate.py self-test: {5 - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        sys.exit(__doc__)
    types, templates = read_key_types(), read_templates()
    stale = 0
    for src in sorted(f for f in os.listdir(HERE) if f.endswith(".sql.in")):
        target = os.path.join(OUT, src[: -len(".in")])
        text = generate(src, types, templates)
        old = open(target).read() if os.path.exists(target) else ""
        if text == old:
            continue
        if check:
            stale += 1
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True),
                f"sql/{src[:-3]} (committed)", f"sql/{src[:-3]} (generated)"))
        else:
            with open(target, "w") as f:
                f.write(text)
            print(f"wrote sql/{src[:-3]}")
    if check:
        print(f"generated scripts: {'all' if stale == 0 else stale} "
              f"{'up to date' if stale == 0 else 'differ from their sources'}")
    sys.exit(1 if stale else 0)


if __name__ == "__main__":
    main()
