"""A SparkSession for ofc-stats, and Spark's own progress of a running job group.

PySpark is an optional extra: importing this module works without it, and
asking for a session then says how to install it.  A missing Java says so
too, instead of Spark's stack trace.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

from ofc_stats.errors import SparkJobFailed, SparkUnavailable

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, Row, SparkSession

INSTALL_HINT = "install the Spark extra: pip install '.[spark]' from the ofc-stats checkout (and Java 17 or 21)"
T = TypeVar("T")


def parse_conf(pairs: Iterable[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings (the CLI's ``--conf``) as a dict; a pair without ``=`` is refused."""
    conf: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SparkUnavailable(f"--conf {pair!r}: expected KEY=VALUE")
        conf[key.strip()] = value
    return conf


def spark_session(master: str = "local[*]", conf: dict[str, str] | None = None) -> SparkSession:
    """Start (or join) a SparkSession; in local mode the workers run this very interpreter.

    Spark's console progress bar is off: callers report progress from the
    status tracker instead (:func:`run_with_progress`).
    """
    # PySpark 4 warns about pandas 3 on import; ofc-stats hands it Arrow, never pandas.
    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable(f"PySpark is not installed; {INSTALL_HINT}") from None
    settings = {
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
    }
    if master.startswith("local"):  # a cluster's nodes have their own Python
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # PySpark reads it, not the conf
        settings["spark.ui.enabled"] = "false"
    settings.update(conf or {})
    builder = SparkSession.builder.master(master).appName("ofc-stats")
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except Exception as error:  # PySparkRuntimeError when the JVM cannot start
        raise SparkUnavailable(
            f"Spark did not start ({str(error).strip().splitlines()[0]}); "
            f"is Java installed (java -version)? {INSTALL_HINT}"
        ) from None
    session.sparkContext.setLogLevel("FATAL")  # a failed task reaches the caller as an exception
    return session


def run_with_progress(
    spark: SparkSession,
    action: Callable[[], T],
    progress: Callable[[float], None] | None,
    *,
    every: float = 0.5,
) -> T:
    """Run ``action`` (Spark jobs) in a thread; report the fraction of its tasks done.

    The fraction comes from Spark's status tracker over every stage of the
    job group, so it only grows as later stages appear.
    """
    if progress is None:
        return action()
    context = spark.sparkContext
    group = f"ofc-stats-{time.time_ns()}"
    outcome: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        context.setJobGroup(group, "ofc-stats recompute")
        try:
            outcome.append(action())
        except BaseException as error:
            failure.append(error)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    shown = 0.0
    while thread.is_alive():
        thread.join(every)
        done = _fraction(spark, group)
        if done > shown:
            progress(done)
            shown = done
    if failure:
        raise failure[0]
    progress(1.0)
    return outcome[0]


def _fraction(spark: SparkSession, group: str) -> float:
    tracker = spark.sparkContext.statusTracker()
    total = completed = 0
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in info.stageIds if info else ():
            stage_info = tracker.getStageInfo(stage)
            if stage_info is not None:
                total += stage_info.numTasks
                completed += stage_info.numCompletedTasks
    return completed / total if total else 0.0


def collect_summary(spark: SparkSession, frame: DataFrame) -> list[Row]:
    """The summary rows, with adaptive execution off: one job whose stages are known up front
    (honest progress) and exactly the partitions asked for.  A failed task is reported as
    :class:`SparkJobFailed` with the worker's last line, not a JVM stack trace."""
    from pyspark.errors import PySparkException

    key = "spark.sql.adaptive.enabled"
    before = spark.conf.get(key, "true")
    spark.conf.set(key, "false")
    try:
        return frame.collect()
    except PySparkException as error:
        last = _exception_line(str(error))
        raise SparkJobFailed(
            f"Spark job failed: {last}; batches committed before it are kept, "
            "run it again for the rest"
        ) from None
    finally:
        spark.conf.set(key, before or "true")


def _exception_line(text: str) -> str:
    """The last ``module.Name: message`` line of a Python traceback inside Spark's error."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    found = [line for line in lines if EXCEPTION_LINE.match(line) and "SQLSTATE" not in line]
    return (found or lines or ["no message"])[-1]


EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*: \S")
