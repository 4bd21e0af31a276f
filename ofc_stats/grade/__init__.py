"""Grading decisions: the expected points each street's play lost against the best legal one.

:mod:`~ofc_stats.grade.position` reads what a player could see at each
decision from a batch's tables, :mod:`~ofc_stats.grade.rollout` values
candidates by Monte Carlo with common random numbers and
:mod:`~ofc_stats.grade.race` spends rollouts where candidates are close (both
run in the compiled core, whose continuation policy plays a board on without
seeing the future), :mod:`~ofc_stats.grade.fantasy` grades Fantasyland sets,
:mod:`~ofc_stats.grade.tasks` turns a chunk of decisions into Arrow rows and
:mod:`~ofc_stats.grade.run` stores the grades batch by batch.
"""
