"""The record options of `policy-run batch`, passed through to every partition unchanged."""

from dataclasses import dataclass, field
from typing import List, Optional


@dataclass(frozen=True)
class RecordOptions:
    """How records are read and judged: the options `policy-run batch` takes for them.

    They are handed to the binary as written, so their meaning (and their validation) is the
    binary's own: `python -m policy_spark` and `policy-run batch` never disagree on a record.
    """

    input_format: Optional[str] = None
    token_field: Optional[str] = None
    time_field: Optional[str] = None
    var_fields: List[str] = field(default_factory=list)
    variables: List[str] = field(default_factory=list)
    now: Optional[str] = None
    no_cache: bool = False
    max_line_bytes: Optional[int] = None

    def arguments(self) -> List[str]:
        """The options as `policy-run batch` arguments, in a fixed order."""
        arguments: List[str] = []
        for flag, value in (("--input-format", self.input_format), ("--token-field", self.token_field),
                            ("--time-field", self.time_field), ("--now", self.now),
                            ("--max-line-bytes", self.max_line_bytes)):
            if value is not None:
                arguments += [flag, str(value)]
        for entry in self.var_fields:
            arguments += ["--var-field", entry]
        for entry in self.variables:
            arguments += ["--var", entry]
        if self.no_cache:
            arguments.append("--no-cache")
        return arguments
