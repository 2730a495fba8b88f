"""How much more memory this process can take, so a reader refuses at once what it could not finish."""

from __future__ import annotations

import resource

# The container's memory cgroup (version 2, then 1): its limit, its usage, and in its statistics
# the file cache it would give back (counted in its usage, not in what a process can be refused).
_CGROUPS = (
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current", "/sys/fs/cgroup/memory.stat", "inactive_file"),
    (
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
        "/sys/fs/cgroup/memory/memory.usage_in_bytes",
        "/sys/fs/cgroup/memory/memory.stat",
        "total_inactive_file",
    ),
)


def memory_room() -> int | None:
    """Bytes this process can still allocate: the least of what its address-space limit leaves,
    what its cgroup's limit leaves, and the machine's available memory; None where none is known."""
    rooms = [room for room in (_address_space_room(), _cgroup_room(), _available()) if room is not None]
    return min(rooms) if rooms else None


def _address_space_room() -> int | None:
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    mapped = _fields("/proc/self/status").get("VmSize")
    if limit == resource.RLIM_INFINITY or mapped is None:
        return None
    return max(limit - mapped * 1024, 0)


def _cgroup_room() -> int | None:
    for limit_file, usage_file, stat_file, cache in _CGROUPS:
        limit, usage = _number(limit_file), _number(usage_file)
        if limit is not None and usage is not None:
            return max(limit - usage + _fields(stat_file, " ").get(cache, 0), 0)
    return None


def _available() -> int | None:
    kib = _fields("/proc/meminfo").get("MemAvailable")
    return None if kib is None else kib * 1024


def _number(path: str) -> int | None:
    """The integer a one-number file holds (None when absent, or "max": no limit)."""
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def _fields(path: str, separator: str = ":") -> dict[str, int]:
    """A file of "name<separator> number [unit]" lines as {name: number}, {} when it cannot be read."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                key, _, rest = line.partition(separator)
                words = rest.split()
                if words and words[0].isdigit():
                    out[key] = int(words[0])
    except OSError:
        pass
    return out
