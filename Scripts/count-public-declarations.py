#!/usr/bin/env python3
"""Counts the public declarations of Swift modules, those behind each @_spi apart, and fails when
one has no doc comment (protocol conformances' members excepted: they are documented where the
protocol is). Usage: count-public-declarations.py DIR... (e.g. Sources/PolicyRuntime)."""
import os
import re
import sys

DECL = re.compile(r'^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*(public|open)\s+(static\s+|final\s+|override\s+|mutating\s+|nonisolated\s+'
                  r'|convenience\s+|required\s+|indirect\s+|private\(set\)\s+|internal\(set\)\s+)*'
                  r'(func|var|let|init|struct|enum|class|protocol|case|typealias|subscript|actor|extension)\b')
# Members that implement a standard protocol's requirement.
CONFORMANCE = re.compile(r'\b(var description: String|static func == |func hash\(into|init\(from decoder|func encode\(to encoder'
                         r'|static func < )')
SPI_TYPE = re.compile(r'^\s*@_spi\(([A-Za-z]+)\)\s+public\s+(?:indirect\s+|final\s+)*(?:struct|enum|class|protocol|actor)\s+(\w+)')
SPI_NAME = re.compile(r'@_spi\(([A-Za-z]+)\)')


def code_of(line):
    """The line without string literals and its comment, for counting braces."""
    return re.sub(r'"(\\.|[^"\\])*"', '""', line).split('//')[0]


def swift_files(directory):
    for root, _, names in os.walk(directory):
        yield from (os.path.join(root, name) for name in sorted(names) if name.endswith('.swift'))


def count(directory, spi_types):
    """Public declarations outside any SPI, those behind each SPI by its name, and the undocumented."""
    public = 0
    spi = {}
    undocumented = []
    for path in swift_files(directory):
        lines = open(path, encoding='utf-8').read().split('\n')
        depth, spi_depth, spi_name = 0, None, None
        for number, line in enumerate(lines, 1):
            code = code_of(line)
            extension = re.match(r'^\s*(public\s+)?extension\s+(\w+)', code)
            named = SPI_NAME.search(code)
            opens_spi = named.group(1) if named else (spi_types.get(extension.group(2)) if extension else None)
            if DECL.match(line) and 'public extension' not in code:
                group = named.group(1) if named else spi_name
                if group:
                    spi[group] = spi.get(group, 0) + 1
                else:
                    public += 1
                previous = number - 2
                while previous >= 0 and lines[previous].strip().startswith('@'):
                    previous -= 1
                documented = previous >= 0 and lines[previous].strip().startswith('///')
                if not documented and not CONFORMANCE.search(line):
                    undocumented.append(f"{path}:{number}: {line.strip()}")
            if opens_spi and spi_depth is None and '{' in code:
                spi_depth, spi_name = depth, opens_spi
            depth += code.count('{') - code.count('}')
            if spi_depth is not None and depth <= spi_depth:
                spi_depth, spi_name = None, None
    return public, spi, undocumented


def main(directories):
    spi_types = {match.group(2): match.group(1) for directory in directories for path in swift_files(directory)
                 for match in map(SPI_TYPE.match, open(path, encoding='utf-8')) if match}
    total_public, total_spi = 0, {}
    undocumented = []
    for directory in directories:
        public, spi, missing = count(directory, spi_types)
        total_public += public
        for name, number in spi.items():
            total_spi[name] = total_spi.get(name, 0) + number
        undocumented += missing
        print(f"{directory}: {public} public" + "".join(f", {number} behind @_spi({name})" for name, number in sorted(spi.items())))
    print(f"total: {total_public} public" + "".join(f", {number} behind @_spi({name})" for name, number in sorted(total_spi.items())))
    for line in undocumented:
        print(f"undocumented: {line}", file=sys.stderr)
    return 1 if undocumented else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
