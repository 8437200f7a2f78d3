#!/usr/bin/python3
"""Check META.json against the PGXN Meta Spec 1.0.0, and against the rest of the release.

    python3 test/meta_check.py [META.json]    the checks below; exit 1 if one fails
    python3 test/meta_check.py --self-test    documents the spec forbids must be refused

No validator can be fetched here, so this is one, with the standard library only.  It follows
the spec's JSON Schema (PGXN's v1 distribution schema: required keys, no keys but the spec's
and x_ ones, each value's form):
  name           a Term: at least 2 characters, no slash, backslash, whitespace or control
  version        a SemVer 2.0.0 version (so is every version of `provides`)
  abstract, description, generated_by   non-empty strings
  maintainer     a non-empty string, or a non-empty list of distinct non-empty strings
  license        a name from the spec's list, a list of them, or {name: URI}
  provides       {Term: {file, version, [abstract], [docfile], [docpath]}}: file and docfile
                 relative Unix paths
  meta-spec      {version: 1.0.x, [url: the spec's]}
  prereqs        {phase: {relationship: {Term: version range}}} with the spec's phases and
                 relationships
  release_status stable, testing or unstable
  resources      homepage URI, bugtracker {web URI and/or mailto address}, repository
                 {url and type, and/or web}
  tags           a non-empty list of distinct strings of 2 to 255 characters without slash,
                 backslash or control characters
  no_index       {file and/or directory: a path or a list of paths}
and then what the spec cannot know: the files provides names exist, the distribution is named
after the extension, its version is bloomsketch.control's default_version (1.5 is 1.5.0), and
debian/changelog's newest entry is that version.

Prints one line per check (`ok - ...` / `not ok - ...`) and ends with `meta: N passed, N failed`.
"""

import json
import os
import re
import sys

SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")
_SEMVER_BODY = SEMVER.pattern[1:-1]
VERSION_RANGE = re.compile(
    r"^(?:(?:[=!]=|[<>]=?)\s*)?(?:" + _SEMVER_BODY + r"|0)"
    r"(?:,\s*(?:(?:[=!]=|[<>]=?)\s*)?" + _SEMVER_BODY + r")*$")
LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd",
    "gfdl_1_2", "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit",
    "mozilla_1_0", "mozilla_1_1", "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay", "sun",
    "zlib", "open_source", "restricted", "unrestricted", "unknown",
}
TOP_KEYS = {
    "name", "version", "abstract", "maintainer", "license", "provides", "meta-spec",
    "description", "generated_by", "tags", "no_index", "prereqs", "release_status", "resources",
}
REQUIRED = ["name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"]
PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONSHIPS = {"requires", "recommends", "suggests", "conflicts"}
SPEC_URLS = {"https://pgxn.org/meta/spec.txt", "http://pgxn.org/meta/spec.txt"}
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def is_custom(key):
    return re.match(r"^[xX]_.", key) is not None


def is_str(v, min_len=1):
    return isinstance(v, str) and len(v) >= min_len


def is_term(v):
    return is_str(v, 2) and not re.search(r"[/\\\s]", v) and not CONTROL_CHARS.search(v)


def is_tag(v):
    return is_str(v, 2) and len(v) <= 255 and not re.search(r"[/\\]", v) and not CONTROL_CHARS.search(v)


def is_path(v):
    """A relative path in Unix form: no leading slash, no backslash, no `..`, no empty part."""
    if not is_str(v, 2) or "\\" in v or v.startswith("/") or CONTROL_CHARS.search(v):
        return False
    parts = v.split("/")
    return all(p not in ("", "..") for p in parts)


def unique(items):
    seen = []
    for i in items:
        if i in seen:
            return False
        seen.append(i)
    return True


def only_keys(obj, allowed):
    """The keys of obj that are neither allowed nor custom (x_...)."""
    return sorted(k for k in obj if k not in allowed and not is_custom(k))


class Checker:
    def __init__(self, quiet=False):
        self.passed = 0
        self.failed = 0
        self.quiet = quiet

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            if not self.quiet:
                print(f"ok - {what}")
        else:
            self.failed += 1
            if not self.quiet:
                print(f"not ok - {what}" + (f": {detail}" if detail else ""))
        return ok


def check_spec(meta, c):
    """The PGXN Meta Spec 1.0.0 (the v1 distribution schema)."""
    if not c.check(isinstance(meta, dict), "META.json is a JSON object"):
        return
    missing = [k for k in REQUIRED if k not in meta]
    c.check(not missing, "the required keys are there", "missing " + ", ".join(missing))
    extra = only_keys(meta, TOP_KEYS)
    c.check(not extra, "no key outside the spec (but x_ ones)", "unknown " + ", ".join(extra))

    if "name" in meta:
        c.check(is_term(meta["name"]), "name is a Term", repr(meta["name"]))
    if "version" in meta:
        c.check(is_str(meta["version"]) and SEMVER.match(meta["version"]) is not None,
                "version is a SemVer version", repr(meta["version"]))
    for key in ("abstract", "description", "generated_by"):
        if key in meta:
            c.check(is_str(meta[key]), f"{key} is a non-empty string", repr(meta[key]))

    if "maintainer" in meta:
        m = meta["maintainer"]
        ok = is_str(m) or (isinstance(m, list) and len(m) >= 1 and all(is_str(x) for x in m)
                           and unique(m))
        c.check(ok, "maintainer is a string or a list of distinct strings", repr(m))

    if "license" in meta:
        lic = meta["license"]
        if isinstance(lic, str):
            ok = lic in LICENSES
        elif isinstance(lic, list):
            ok = len(lic) >= 1 and unique(lic) and all(isinstance(x, str) and x in LICENSES for x in lic)
        elif isinstance(lic, dict):
            ok = len(lic) >= 1 and all(is_str(v) and URI.match(v) for v in lic.values())
        else:
            ok = False
        c.check(ok, "license is one of the spec's names, a list of them, or {name: URI}", repr(lic))

    if "provides" in meta:
        p = meta["provides"]
        if c.check(isinstance(p, dict) and len(p) >= 1, "provides names at least one extension"):
            for ext, e in p.items():
                c.check(is_term(ext), f"provides: {ext!r} is a Term")
                if not c.check(isinstance(e, dict), f"provides.{ext} is an object"):
                    continue
                miss = [k for k in ("file", "version") if k not in e]
                c.check(not miss, f"provides.{ext} has file and version", "missing " + ", ".join(miss))
                extra = only_keys(e, {"file", "version", "abstract", "docfile", "docpath"})
                c.check(not extra, f"provides.{ext} has no key outside the spec", ", ".join(extra))
                if "version" in e:
                    c.check(is_str(e["version"]) and SEMVER.match(e["version"]) is not None,
                            f"provides.{ext}.version is a SemVer version", repr(e["version"]))
                for k in ("file", "docfile"):
                    if k in e:
                        c.check(is_path(e[k]), f"provides.{ext}.{k} is a relative Unix path", repr(e[k]))
                for k in ("abstract", "docpath"):
                    if k in e:
                        c.check(is_str(e[k]), f"provides.{ext}.{k} is a non-empty string", repr(e[k]))

    if "meta-spec" in meta:
        ms = meta["meta-spec"]
        if c.check(isinstance(ms, dict), "meta-spec is an object"):
            v = ms.get("version")
            c.check(is_str(v) and re.match(r"^1\.0\.[0-9]+$", v) is not None,
                    "meta-spec.version is 1.0.x", repr(v))
            if "url" in ms:
                c.check(ms["url"] in SPEC_URLS, "meta-spec.url is the spec's", repr(ms["url"]))
            extra = only_keys(ms, {"version", "url"})
            c.check(not extra, "meta-spec has no key outside the spec", ", ".join(extra))

    if "release_status" in meta:
        c.check(meta["release_status"] in ("stable", "testing", "unstable"),
                "release_status is stable, testing or unstable", repr(meta["release_status"]))

    if "tags" in meta:
        t = meta["tags"]
        c.check(isinstance(t, list) and len(t) >= 1 and unique(t) and all(is_tag(x) for x in t),
                "tags is a list of distinct tags (2 to 255 characters, no slash or backslash)", repr(t))

    if "prereqs" in meta:
        pr = meta["prereqs"]
        ok = isinstance(pr, dict) and not only_keys(pr, PHASES) and any(k in pr for k in PHASES)
        detail = repr(pr)
        if ok:
            for phase in PHASES & pr.keys():
                ph = pr[phase]
                if not (isinstance(ph, dict) and not only_keys(ph, RELATIONSHIPS)
                        and any(k in ph for k in RELATIONSHIPS)):
                    ok, detail = False, f"phase {phase}: {ph!r}"
                    break
                for rel in RELATIONSHIPS & ph.keys():
                    r = ph[rel]
                    if not (isinstance(r, dict) and len(r) >= 1):
                        ok, detail = False, f"{phase}.{rel}: {r!r}"
                        break
                    for name, rng in r.items():
                        rng_ok = rng == 0 or (is_str(rng) and VERSION_RANGE.match(rng) is not None)
                        if isinstance(rng, bool) or not is_term(name) or not rng_ok:
                            ok, detail = False, f"{phase}.{rel}.{name}: {rng!r}"
                            break
        c.check(ok, "prereqs maps phases to relationships to {Term: version range}", detail)

    if "resources" in meta:
        r = meta["resources"]
        ok = (isinstance(r, dict) and not only_keys(r, {"homepage", "bugtracker", "repository"})
              and any(k in r for k in ("homepage", "bugtracker", "repository")))
        if ok and "homepage" in r:
            ok = is_str(r["homepage"]) and URI.match(r["homepage"]) is not None
        if ok and "bugtracker" in r:
            b = r["bugtracker"]
            ok = (isinstance(b, dict) and not only_keys(b, {"web", "mailto"})
                  and any(k in b for k in ("web", "mailto"))
                  and ("web" not in b or (is_str(b["web"]) and URI.match(b["web"])))
                  and ("mailto" not in b or (is_str(b["mailto"]) and EMAIL.match(b["mailto"]))))
        if ok and "repository" in r:
            rp = r["repository"]
            ok = (isinstance(rp, dict) and not only_keys(rp, {"url", "web", "type"})
                  and (("url" in rp and "type" in rp) or "web" in rp)
                  and all(is_str(rp[k]) and URI.match(rp[k]) for k in ("url", "web") if k in rp)
                  and ("type" not in rp or (is_str(rp["type"]) and re.match(r"^[a-z]+$", rp["type"]))))
        c.check(bool(ok), "resources: homepage URI, bugtracker web/mailto, repository url+type/web",
                repr(r))

    if "no_index" in meta:
        n = meta["no_index"]

        def paths(v):
            return is_path(v) or (isinstance(v, list) and len(v) >= 1 and unique(v)
                                  and all(is_path(x) for x in v))
        ok = (isinstance(n, dict) and not only_keys(n, {"file", "directory"})
              and any(k in n for k in ("file", "directory"))
              and all(paths(n[k]) for k in ("file", "directory") if k in n))
        c.check(ok, "no_index lists files and directories as relative paths", repr(n))


def control_version(root):
    with open(os.path.join(root, "bloomsketch.control"), encoding="utf-8") as f:
        m = re.search(r"^default_version\s*=\s*'([^']*)'", f.read(), re.M)
    return m.group(1) if m else None


def check_project(meta, root, c):
    """What the spec cannot know: the files exist and every place names the same version."""
    if not isinstance(meta, dict):
        return
    c.check(meta.get("name") == "bloomsketch", "the distribution is named bloomsketch", repr(meta.get("name")))
    provides = meta.get("provides") if isinstance(meta.get("provides"), dict) else {}
    c.check("bloomsketch" in provides, "it provides the extension bloomsketch")
    for ext, e in provides.items():
        if not isinstance(e, dict):
            continue
        for k in ("file", "docfile"):
            if k in e and is_str(e[k]):
                c.check(os.path.isfile(os.path.join(root, e[k])), f"provides.{ext}.{k} {e[k]} exists")
        c.check(e.get("version") == meta.get("version"),
                f"provides.{ext}.version is the distribution's version", repr(e.get("version")))

    cv = control_version(root)
    want = None
    if cv is not None and re.match(r"^[0-9]+\.[0-9]+$", cv):
        want = cv + ".0"
    elif cv is not None and re.match(r"^[0-9]+\.[0-9]+\.[0-9]+$", cv):
        want = cv
    c.check(want is not None and meta.get("version") == want,
            f"version is bloomsketch.control's default_version ({cv!r} is {want!r})", repr(meta.get("version")))

    changelog = os.path.join(root, "debian", "changelog")
    if os.path.isfile(changelog):
        with open(changelog, encoding="utf-8") as f:
            m = re.match(r"^bloomsketch \(([^)]*)\)", f.readline())
        c.check(m is not None and m.group(1) == meta.get("version"),
                "debian/changelog's newest entry is that version", m.group(1) if m else "unreadable")


# Documents the spec refuses (each must fail at least one check), from a valid one.
def self_test():
    base = {
        "name": "pair", "abstract": "A key/value pair data type", "version": "0.1.8",
        "maintainer": "someone <someone@example.org>", "license": "postgresql",
        "provides": {"pair": {"file": "sql/pair.sql", "version": "0.1.8"}},
        "meta-spec": {"version": "1.0.0"},
    }
    bad = {
        "no name": lambda d: d.pop("name"),
        "no provides": lambda d: d.pop("provides"),
        "no meta-spec": lambda d: d.pop("meta-spec"),
        "name with a slash": lambda d: d.update(name="a/b"),
        "name with a space": lambda d: d.update(name="a b"),
        "one-character name": lambda d: d.update(name="a"),
        "version not SemVer (1.5)": lambda d: d.update(version="1.5"),
        "version with a leading zero": lambda d: d.update(version="01.5.0"),
        "license not in the list": lambda d: d.update(license="PostgreSQL License"),
        "license object without a URI": lambda d: d.update(license={"PostgreSQL": "the usual"}),
        "empty maintainer list": lambda d: d.update(maintainer=[]),
        "provides without file": lambda d: d["provides"]["pair"].pop("file"),
        "provides without version": lambda d: d["provides"]["pair"].pop("version"),
        "provides version not SemVer": lambda d: d["provides"]["pair"].update(version="1"),
        "absolute provides file": lambda d: d["provides"]["pair"].update(file="/sql/pair.sql"),
        "provides file outside the tree": lambda d: d["provides"]["pair"].update(file="../pair.sql"),
        "unknown provides key": lambda d: d["provides"]["pair"].update(docs="README"),
        "meta-spec 2.0.0": lambda d: d.update({"meta-spec": {"version": "2.0.0"}}),
        "meta-spec url elsewhere": lambda d: d["meta-spec"].update(url="https://example.org/spec"),
        "unknown top-level key": lambda d: d.update(homepage="https://example.org"),
        "release_status beta": lambda d: d.update(release_status="beta"),
        "empty tags": lambda d: d.update(tags=[]),
        "tag with a slash": lambda d: d.update(tags=["a/b"]),
        "prereqs phase unknown": lambda d: d.update(prereqs={"install": {"requires": {"PostgreSQL": "15.0.0"}}}),
        "prereqs range not a version": lambda d: d.update(prereqs={"runtime": {"requires": {"PostgreSQL": "15"}}}),
        "resources empty": lambda d: d.update(resources={}),
        "bugtracker mailto not an address": lambda d: d.update(resources={"bugtracker": {"mailto": "nobody"}}),
        "repository url without type": lambda d: d.update(resources={"repository": {"url": "https://example.org/x.git"}}),
    }
    c = Checker()
    base_c = Checker(quiet=True)
    check_spec(json.loads(json.dumps(base)), base_c)
    c.check(base_c.failed == 0, "a valid document passes", f"{base_c.failed} checks failed")
    good = dict(base, prereqs={"runtime": {"requires": {"PostgreSQL": ">= 15.0.0, < 19.0.0", "plpgsql": 0}}},
                license={"PostgreSQL": "https://www.postgresql.org/about/licence"},
                resources={"repository": {"web": "https://example.org/pair"}}, tags=["key value"])
    good_c = Checker(quiet=True)
    check_spec(good, good_c)
    c.check(good_c.failed == 0, "a valid document with ranges, a license object and resources passes",
            f"{good_c.failed} checks failed")
    for what, change in bad.items():
        d = json.loads(json.dumps(base))
        change(d)
        dc = Checker(quiet=True)
        check_spec(d, dc)
        c.check(dc.failed > 0, f"refused: {what}")
    return c


def main(argv):
    if argv[1:] == ["--self-test"]:
        c = self_test()
    else:
        path = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "META.json")
        root = os.path.dirname(os.path.abspath(path))
        c = Checker()
        try:
            with open(path, encoding="utf-8") as f:
                meta = json.load(f)
        except (OSError, ValueError) as e:
            c.check(False, f"{path} is readable JSON", str(e))
        else:
            c.check(True, f"{path} is readable JSON")
            check_spec(meta, c)
            check_project(meta, root, c)
    print(f"meta: {c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
