"""The batch engine on Apache Spark (the optional extra ``pip install '.[spark]'``).

``recompute(spark, "ofc-data")`` scores a dataset's import batches inside
Spark's ``mapInArrow`` and writes ``results``/``versus`` in the dataset's own
layout, so :func:`ofc_stats.open`, the audit and the reports read them as if
the local recompute had; ``grade(spark, "ofc-data", GradeOptions())`` does
the same for the grades.  ``spark_session(master, conf)`` starts a session.
"""

from ofc_stats.spark.grading import grade
from ofc_stats.spark.scoring import recompute
from ofc_stats.spark.session import parse_conf, spark_session

__all__ = ["grade", "parse_conf", "recompute", "spark_session"]
