"""Installing the Chromium builds the chromium backend runs: the npm package
``@sparticuz/chromium`` (MIT), a headless Chromium for Linux x86-64 with
WebNN's TFLite (LiteRT + XNNPACK) backend compiled in, which Debian's
``chromium`` lacks ("WebNN is not supported on this platform").

The package holds the browser as ``bin/chromium.br`` and the SwiftShader
libraries (libEGL, libGLESv2, Vulkan SwiftShader; the GPU process does not
start without them) as ``bin/swiftshader.tar.br``, both brotli-compressed.
``install`` fetches one version with the npm client (``npm pack``: the
registry, proxy and cache the user configured), reads just those two members
from the tarball and decompresses them into::

    $XDG_CACHE_HOME/webnn-harness/browsers/<version>/   (default ~/.cache)
        chromium            the executable (about 180 MB)
        libEGL.so ...       SwiftShader, beside it
        package.json        the npm package's own, to say what was installed

Brotli is decompressed by node's zlib: node is there wherever npm is, so the
install needs no Python package beyond ours.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "@sparticuz/chromium"
# The pinned release: Chromium 153.0.8010.0 (WebNN on LiteRT/XNNPACK).
DEFAULT_VERSION = "153.0.0"
EXECUTABLE = "chromium"
# The package members installed, each copied to the work folder under its own name.
_MEMBERS = {"package/bin/chromium.br": "chromium.br", "package/bin/swiftshader.tar.br": "swiftshader.tar.br",
            "package/package.json": "package.json"}
# ASCII digits only, matched whole (``$`` would let "153.0.0\n" through), each part at most 6 digits: a
# version names a folder of the cache and is passed to npm.
_VERSION = re.compile(r"[0-9]{1,6}(\.[0-9]{1,6}){0,2}")
_RELEASE = re.compile(r"[0-9]{1,6}\.[0-9]{1,6}\.[0-9]{1,6}")  # an exact package version, no pre-release
_MILESTONE = re.compile(r"[0-9]{1,6}")
# Node's streaming brotli decoder: argv[1] in, argv[2] out.
_UNBROTLI = ("const z=require('zlib'),f=require('fs');"
             "f.createReadStream(process.argv[1]).pipe(z.createBrotliDecompress())"
             ".pipe(f.createWriteStream(process.argv[2])).on('finish',()=>process.exit(0))"
             ".on('error',e=>{console.error(e.message);process.exit(1)});")


class InstallError(RuntimeError):
    """Installing failed (no npm, no such version, a malformed package): one line."""


@dataclass(frozen=True)
class InstalledBrowser:
    version: str  # the npm package's version, e.g. "153.0.0"
    folder: Path
    size_bytes: int

    @property
    def executable(self) -> Path:
        return self.folder / EXECUTABLE

    @property
    def milestone(self) -> str:
        return self.version.split(".")[0]


def browsers_folder() -> Path:
    """Where installed versions live: $XDG_CACHE_HOME/webnn-harness/browsers."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "webnn-harness" / "browsers"


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def installed() -> list[InstalledBrowser]:
    """Every complete installed version, oldest first."""
    root = browsers_folder()
    if not root.is_dir():
        return []
    found = [InstalledBrowser(p.name, p, folder_size(p)) for p in root.iterdir()
             if _VERSION.fullmatch(p.name) and (p / EXECUTABLE).is_file()]
    return sorted(found, key=lambda b: _release_key(b.version))


def resolve(version: str | None) -> InstalledBrowser:
    """The installed version ``version`` names: exact ("153.0.0") or by
    milestone ("153", the newest of that milestone); None: the pinned release
    if installed, else the newest installed. InstallError when none matches."""
    if version is not None:
        check_version_name(version)
    browsers = installed()
    hint = f"webnn-harness browsers install {version or ''}".rstrip()
    if not browsers:
        raise InstallError(f"no Chromium installed for the chromium backend in {browsers_folder()}; run '{hint}'")
    if version is None:
        pinned = [b for b in browsers if b.version == DEFAULT_VERSION]
        return (pinned or browsers)[-1]
    matching = [b for b in browsers if b.version == version or b.milestone == version]
    if not matching:
        have = ", ".join(b.version for b in browsers)
        raise InstallError(f"Chromium package version {version} is not installed (installed: {have}); run '{hint}'")
    return matching[-1]


def _run(command: list[str], cwd: Path, what: str) -> str:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise InstallError(f"{what} needs '{command[0]}' (Node.js and npm) on PATH") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["exit status %d" % done.returncode])[-1]
        raise InstallError(f"{what} failed: {last}")
    return done.stdout


def npm_pack(version: str, into: Path) -> Path:
    """The package tarball of ``version``, fetched by the npm client into ``into``."""
    out = _run(["npm", "pack", f"{PACKAGE}@{version}", "--json", "--silent"], into, f"npm pack {PACKAGE}@{version}")
    try:
        filename = json.loads(out)[0]["filename"]
    except (ValueError, LookupError, TypeError):
        raise InstallError(f"npm pack {PACKAGE}@{version}: unexpected output {out[:200]!r}") from None
    return into / Path(filename).name


def _release_key(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in version.split("."))


def newest_of_milestone(milestone: str, versions: list) -> str | None:
    """The newest release (no pre-release such as 135.0.0-next.3) of ``milestone`` among ``versions``."""
    releases = [v for v in versions if isinstance(v, str) and _RELEASE.fullmatch(v) and v.split(".")[0] == milestone]
    return max(releases, key=_release_key, default=None)


def check_version_name(version: str) -> None:
    """An InstallError unless ``version`` is a package version (153.0.0) or a milestone (153)."""
    if not (_RELEASE.fullmatch(version) or _MILESTONE.fullmatch(version)):
        raise InstallError(f"{version[:40]!r} is neither a package version (e.g. {DEFAULT_VERSION}) nor a "
                           "milestone (153)")


def published_version(version: str) -> str:
    """The exact package version ``version`` names: itself when it is one
    (153.0.0), else the newest release of that milestone (143 -> 143.0.4) as
    ``npm view PACKAGE versions --json`` lists them."""
    check_version_name(version)
    if _RELEASE.fullmatch(version):
        return version
    out = _run(["npm", "view", PACKAGE, "versions", "--json"], Path.cwd(), f"npm view {PACKAGE} versions")
    try:
        versions = json.loads(out)
    except ValueError:
        raise InstallError(f"npm view {PACKAGE} versions: unexpected output {out[:200]!r}") from None
    exact = newest_of_milestone(version, versions if isinstance(versions, list) else [versions])
    if exact is None:
        raise InstallError(f"{PACKAGE} has no release of milestone {version}")
    return exact


def _copy_members(tgz: Path, into: Path) -> None:
    """The package's browser, SwiftShader archive and package.json, read by
    member name and written under names we choose: nothing in the archive
    names a path we write."""
    with tarfile.open(tgz, "r:gz") as archive:
        for member in archive.getmembers():
            target = _MEMBERS.get(member.name)
            if target is None or not member.isfile():
                continue
            with archive.extractfile(member) as source, open(into / target, "wb") as out:
                shutil.copyfileobj(source, out)
    missing = [name for name in _MEMBERS.values() if not (into / name).exists()]
    if missing:
        raise InstallError(f"{tgz.name} lacks {', '.join(missing)}: not a {PACKAGE} package with a browser")


def unbrotli(source: Path, target: Path) -> None:
    _run(["node", "-e", _UNBROTLI, str(source), str(target)], source.parent, f"decompressing {source.name}")


def _inside(folder: Path, name: str) -> bool:
    resolved = (folder / name).resolve()
    return resolved == folder.resolve() or folder.resolve() in resolved.parents


def extract_regular_files(tar: Path, into: Path) -> None:
    """Every regular file of ``tar`` into ``into`` (folders made as needed);
    links, devices and names reaching outside ``into`` are refused."""
    with tarfile.open(tar) as archive:
        for member in archive.getmembers():
            if member.isdir():
                continue
            if not member.isfile() or not _inside(into, member.name) or os.path.isabs(member.name):
                raise InstallError(f"{tar.name}: refusing member {member.name!r} (not a plain file inside the folder)")
            target = into / member.name
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.extractfile(member) as source, open(target, "wb") as out:
                shutil.copyfileobj(source, out)
            target.chmod(0o755 if member.mode & 0o111 else 0o644)


def install_tarball(tgz: Path, version: str) -> InstalledBrowser:
    """Install the package tarball ``tgz`` as ``version``: unpacked beside the
    cache folder and moved into place in one rename, so a broken install
    never looks installed."""
    root = browsers_folder()
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=f".{version}-") as work:
        work_dir = Path(work)
        staged = work_dir / version
        staged.mkdir()
        _copy_members(tgz, work_dir)
        unbrotli(work_dir / "chromium.br", staged / EXECUTABLE)
        (staged / EXECUTABLE).chmod(0o755)
        unbrotli(work_dir / "swiftshader.tar.br", work_dir / "swiftshader.tar")
        extract_regular_files(work_dir / "swiftshader.tar", staged)
        shutil.copyfile(work_dir / "package.json", staged / "package.json")
        final = root / version
        if final.is_symlink() or final.is_file():  # replaced, never followed
            final.unlink()
        elif final.exists():
            shutil.rmtree(final)
        staged.rename(final)
    return InstalledBrowser(version, final, folder_size(final))


def check_writable() -> Path:
    """browsers_folder(), made and written to once: a cache that cannot take the browser is said
    before 70 MB are fetched, not after."""
    root = browsers_folder()
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=root):
            pass
    except OSError as exc:
        raise InstallError(f"{root}: cannot install a browser there: {exc.strerror or exc} "
                           "(set XDG_CACHE_HOME to a folder you can write)") from None
    return root


def install(version: str = DEFAULT_VERSION) -> InstalledBrowser:
    """Fetch ``PACKAGE@version`` with npm and install it into browsers_folder()."""
    if not _VERSION.fullmatch(version):
        raise InstallError(f"{version!r} is not a package version (e.g. {DEFAULT_VERSION})")
    check_writable()
    with tempfile.TemporaryDirectory(prefix="webnn-harness-npm-") as work:
        tgz = npm_pack(version, Path(work))
        exact = _package_version(tgz) or version
        return install_tarball(tgz, exact)


def _package_version(tgz: Path) -> str | None:
    """The version in the tarball's package.json (npm pack of "153" fetches the newest 153.x)."""
    with tarfile.open(tgz, "r:gz") as archive:
        try:
            member = archive.extractfile("package/package.json")
        except KeyError:
            return None
        version = json.load(member).get("version") if member else None
    return version if isinstance(version, str) and _VERSION.fullmatch(version) else None
