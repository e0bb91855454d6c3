"""``python -m train.lookahead``: the recipe in one command (its options:
:class:`train.lookahead.args.Args`, ``--help``)."""

from __future__ import annotations

from pathlib import Path

from president_env.cli import parse, user_errors
from train.lookahead.args import Args, record_args
from train.lookahead.fit import fit_files
from train.lookahead.stages import recipe


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the command line ``argv`` (``sys.argv[1:]`` by default): the last stage's
    metrics."""
    args = parse(Args, argv, prog="python -m train.lookahead")
    with user_errors():
        rules = args.rules()
    if args.fit_only:
        first = args.collection(Path(args.out), args.decisions, args.seed)
        with user_errors():
            first.check()
        files = [p for p in first.paths() if p.is_file()] + [Path(a) for a in args.also]
        return fit_files(args.first_fit(), rules, files)
    with user_errors():
        record_args(args)
    return recipe(args, rules)


if __name__ == "__main__":
    main()
