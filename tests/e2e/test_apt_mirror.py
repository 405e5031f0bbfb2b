"""scripts/apt-mirror.sh, which examples/ml/build-image.sh (and CI's image
builds) use to find the Debian mirror of the machine's apt sources: one-line
sources.list entries and deb822 .sources stanzas, read in apt's order."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HELPER = os.path.join(ROOT, "scripts", "apt-mirror.sh")


def mirror(tmp_path, files):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return subprocess.run(["bash", HELPER, str(tmp_path)], capture_output=True, text=True)


def test_one_line_format_skips_sources_security_and_other_components(tmp_path):
    r = mirror(tmp_path, {"sources.list": """# comment
deb-src http://src.example/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/x.gpg] http://security.example/debian-security bookworm-security main
deb http://other.example/debian bookworm stable
deb [ arch=amd64 ] http://mirror.example/debian/ bookworm contrib main # trailing comment
deb http://later.example/debian bookworm main
"""})
    assert (r.returncode, r.stdout) == (0, "http://mirror.example/debian\n")


def test_deb822_stanzas_in_name_order_after_sources_list(tmp_path):
    r = mirror(tmp_path, {
        "sources.list.d/00-vendor.sources": "Types: deb\nURIs: https://vendor.example/debian\n"
                                            "Suites: bookworm\nComponents: stable\n",
        "sources.list.d/10-debian.sources": """# leading comment
Types: deb deb-src
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb
# URIs: http://commented.example/debian
uris:
 http://first.example/debian/
 http://second.example/debian
Suites: bookworm-updates
\tbookworm
Components: main contrib
""",
        "sources.list.d/20-late.list": "deb http://late.example/debian bookworm main\n",
    })
    assert (r.returncode, r.stdout) == (0, "http://first.example/debian\n")


def test_no_mirror_is_an_error(tmp_path):
    r = mirror(tmp_path, {"sources.list.d/debian.sources": "Types: deb\nURIs: http://security.example/debian\n"
                                                           "Suites: bookworm-security\nComponents: main\n"})
    assert r.returncode == 1 and r.stdout == ""
    assert "no Debian mirror" in r.stderr
