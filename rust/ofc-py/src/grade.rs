//! The grader's races: a chunk of street decisions graded on threads, the GIL released.

use numpy::ndarray::{Array2, Array3};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyReadonlyArray1};
use ofc_core::race::{grade_decisions, Graded, NamedGrade, RaceParams};
use ofc_core::rollout::{fantasy_values_problem, Game, Opponent, Position, Setup, PARTS};
use ofc_core::search::{play_policies, Deep, Search};
use pyo3::prelude::*;

use crate::errors::{ruleset_error, unplayable};
use crate::rules::Rules;
use crate::value::ValueFunction;

/// A decision as Python hands it over: (key, street, seat in order of action, board,
/// dealt, discards, dead, opponents as (seat, board, next street, Fantasyland cards),
/// chosen destinations).
pub(crate) type DecisionTuple = (
    Vec<u64>,
    usize,
    usize,
    Vec<i64>,
    Vec<i64>,
    usize,
    Vec<i64>,
    Vec<(usize, Vec<i64>, usize, usize)>,
    Vec<i64>,
);

pub(crate) fn position(d: DecisionTuple) -> Position {
    let (key, street, seat, board, dealt, discards, dead, opponents, chosen) = d;
    Position {
        key,
        street,
        seat,
        board,
        dealt,
        discards,
        dead,
        opponents: opponents
            .into_iter()
            .map(|(seat, board, next_street, fantasy_cards)| Opponent {
                seat,
                board,
                next_street,
                fantasy_cards,
            })
            .collect(),
        chosen,
    }
}

/// The grade of one street decision (see `ofc_stats.grade.race.Graded`).
#[pyclass(frozen, module = "ofc_stats._core")]
pub struct StreetGrade {
    inner: Graded,
    plays: Vec<String>,
}

#[pymethods]
impl StreetGrade {
    /// Index of each legal candidate in the street's candidate table.
    #[getter]
    fn candidates<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_vec(
            py,
            self.inner.candidates.iter().map(|&c| c as i64).collect(),
        )
    }

    /// (legal candidates, cards) destination codes: 0 top, 1 middle, 2 bottom, 3 discard.
    #[getter]
    fn destinations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i8>> {
        let g = &self.inner;
        let codes: Vec<i8> = g.destinations.iter().map(|&d| d as i8).collect();
        Array2::from_shape_vec((g.candidates.len(), g.cards), codes)
            .expect("cards per candidate")
            .into_pyarray(py)
    }

    #[getter]
    fn ev<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.inner.ev)
    }

    #[getter]
    fn se<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.inner.se)
    }

    #[getter]
    fn rollouts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        PyArray1::from_slice(py, &self.inner.rollouts)
    }

    /// Each candidate's measured paired gap behind the best play (negative: measured above
    /// it, within the noise), its SE, and whether it is within the noise of the best.
    #[getter]
    fn gap<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.inner.gap)
    }

    #[getter]
    fn gap_se<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, &self.inner.gap_se)
    }

    #[getter]
    fn within_noise<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_slice(py, &self.inner.within_noise)
    }

    #[getter]
    fn chosen(&self) -> usize {
        self.inner.chosen
    }

    #[getter]
    fn best(&self) -> usize {
        self.inner.best
    }

    #[getter]
    fn loss(&self) -> f64 {
        self.inner.loss
    }

    #[getter]
    fn loss_se(&self) -> f64 {
        self.inner.loss_se
    }

    #[getter]
    fn loss_se_independent(&self) -> f64 {
        self.inner.loss_se_independent
    }

    /// Each legal candidate's play as text (`top Qs | bottom 7h 7d | discard 2c`).
    #[getter]
    fn plays(&self) -> Vec<String> {
        self.plays.clone()
    }

    /// The loss split into rows, fouls, royalties and Fantasyland.
    #[getter]
    fn parts(&self) -> (f64, f64, f64, f64) {
        let p = self.inner.parts;
        (p[0], p[1], p[2], p[3])
    }
}

/// The rollouts' game; Fantasyland values that are not finite points >= 0 are refused
/// (`RulesetError`, one line), never played with.
pub(crate) fn game<'a>(
    py: Python<'_>,
    rules: &'a Rules,
    streets: Vec<(usize, usize)>,
    values: &[f64],
    value: Option<&ValueFunction>,
) -> PyResult<Game<'a>> {
    if let Some(why) = fantasy_values_problem(values) {
        return Err(ruleset_error(py, why));
    }
    Ok(Game {
        rules: &rules.inner,
        streets,
        fantasy_values: values.to_vec(),
        value: value.map(|v| v.inner.clone()),
        search: Search::NONE,
        search_next_only: false,
    })
}

/// Most deals a search may average over (a street-1 search costs about 232 x deals x 27
/// afterstate values).
const MOST_DEALS: usize = 4096;

/// A learned value's search a street ahead from Python's `(deals, among, until, from)`
/// (None: no search), or a `ValueError` saying what is wrong.
pub(crate) fn search_of(search: Option<(usize, usize, usize, usize)>) -> PyResult<Search> {
    let Some((deals, among, until, from)) = search else {
        return Ok(Search::NONE);
    };
    if deals > MOST_DEALS || until > 13 {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "a search takes at most {MOST_DEALS} deals and at most 13 cards placed, \
             not {deals} deals until {until} cards"
        )));
    }
    Ok(Search {
        deals,
        among,
        until,
        from,
    })
}

/// Grade a chunk of street decisions of one ruleset, at most `budget` rollouts a
/// candidate, on `threads` threads (None: every core).  Each decision comes back as
/// a `StreetGrade`, or as the `UnplayablePosition` saying why it cannot be replayed.
/// The grades depend only on each decision and its key, never on the threads or the chunk.
/// `tie` and `extra` override the race's tie margin and second-stage factor
/// (`ofc_core::race::RaceParams`; None: the grader's own); `stick=False` for the replay
/// bot's own positions, whose play made is only a placeholder (no preference, no loss).
/// `search=(deals, among, until, from)` has the rollouts' learned value search a street ahead
/// (`ofc_core::search`; None: greedily), on the graded seat's first street after the
/// decision only with `search_next_only`; `screen=(deals, among, until, from)` has the
/// race's screen rank the candidates by the learned value searching a street ahead
/// (`ofc_core::search::root_values`; None: imagined completions).  `recall=False` is grader
/// version 7's race (no early leaver comes back), `settle=False` version 8's grade (no second
/// look where the fresh rollouts put a play above a kept play made): for studies and tests.
#[pyfunction]
#[pyo3(signature = (
    rules, streets, fantasy_values, decisions, budget, threads=None, value=None, tie=None, extra=None,
    stick=true, search=None, search_next_only=false, screen=None, recall=true, settle=true
))]
#[allow(clippy::too_many_arguments)]
fn grade_street_decisions<'py>(
    py: Python<'py>,
    rules: &Rules,
    streets: Vec<(usize, usize)>,
    fantasy_values: PyReadonlyArray1<'py, f64>,
    decisions: Vec<DecisionTuple>,
    budget: usize,
    threads: Option<usize>,
    value: Option<&ValueFunction>,
    tie: Option<f64>,
    extra: Option<usize>,
    stick: bool,
    search: Option<(usize, usize, usize, usize)>,
    search_next_only: bool,
    screen: Option<(usize, usize, usize, usize)>,
    recall: bool,
    settle: bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut g = game(py, rules, streets, fantasy_values.as_slice()?, value)?;
    g.search = search_of(search)?;
    g.search_next_only = search_next_only;
    let mut params = RaceParams::new(budget);
    params.stick = stick;
    params.recall = recall;
    params.settle = settle;
    params.screen = search_of(screen)?;
    if let Some(tie) = tie {
        if !(tie.is_finite() && tie >= 0.0) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "the tie margin must be a finite number of SEs >= 0, not {tie}"
            )));
        }
        params.tie = tie;
    }
    if let Some(extra) = extra {
        params.extra = extra.max(1);
    }
    let positions: Vec<Position> = decisions.into_iter().map(position).collect();
    let results = py
        .detach(|| grade_decisions(&g, &positions, &params, threads))
        .map_err(pyo3::exceptions::PyRuntimeError::new_err)?;
    results
        .into_iter()
        .map(|r| match r {
            Ok(NamedGrade { graded, plays }) => Ok(Bound::new(
                py,
                StreetGrade {
                    inner: graded,
                    plays,
                },
            )?
            .into_any()),
            Err(why) => Ok(unplayable(py, why).into_value(py).into_bound(py).into_any()),
        })
        .collect()
}

/// The values of candidates `rows` (indices into the street's candidate table) over
/// rollouts `first..first + rollouts` of `phase` (0 the race's, 1 the fresh
/// re-measures, 2 the second look): totals (C, R) and parts (C, R, 4).  For tests and
/// benchmarks.
#[pyfunction]
#[pyo3(signature = (rules, streets, fantasy_values, decision, rows, rollouts, phase=0, first=0))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn rollout_values<'py>(
    py: Python<'py>,
    rules: &Rules,
    streets: Vec<(usize, usize)>,
    fantasy_values: PyReadonlyArray1<'py, f64>,
    decision: DecisionTuple,
    rows: Vec<usize>,
    rollouts: usize,
    phase: u64,
    first: u64,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyArray3<f64>>)> {
    let g = game(py, rules, streets, fantasy_values.as_slice()?, None)?;
    let p = position(decision);
    let values = py.detach(|| {
        let s = Setup::new(&g, &p)?;
        if let Some(&bad) = rows.iter().find(|&&c| !s.legal.contains(&c)) {
            return Err(format!("candidate {bad} does not fit the rows"));
        }
        Ok(s.simulate(&rows, phase, first, rollouts))
    });
    let values = values.map_err(|why| unplayable(py, why))?;
    let total = Array2::from_shape_vec((rows.len(), rollouts), values.total)
        .expect("candidate-major values");
    let parts: Vec<f64> = values.parts.iter().flatten().copied().collect();
    let parts = Array3::from_shape_vec((rows.len(), rollouts, PARTS), parts)
        .expect("candidate-major parts");
    Ok((total.into_pyarray(py), parts.into_pyarray(py)))
}

/// The continuation policy's play of each decision (one ruleset): the destination of
/// each dealt card, or the `UnplayablePosition` saying why it cannot be played.  The
/// replay's policy-alone bot, with `dreams` imaginations a street and look-ahead from
/// `ahead` streets to come (0: none; None: both as in the rollouts), a learned `value`
/// searching a street ahead with `search=(deals, among, until, from)` (`ofc_core::search`;
/// None: greedily; with a search a last street with nothing hidden is played exactly),
/// and two streets deep with `deep=(among, deals, next_among, next_deals)` (None: not);
/// the plays depend only on each decision and its key.
#[pyfunction]
#[pyo3(signature = (
    rules, streets, fantasy_values, decisions, dreams=None, threads=None, ahead=None, value=None,
    search=None, deep=None
))]
#[allow(clippy::too_many_arguments)]
fn policy_plays<'py>(
    py: Python<'py>,
    rules: &Rules,
    streets: Vec<(usize, usize)>,
    fantasy_values: PyReadonlyArray1<'py, f64>,
    decisions: Vec<DecisionTuple>,
    dreams: Option<usize>,
    threads: Option<usize>,
    ahead: Option<usize>,
    value: Option<&ValueFunction>,
    search: Option<(usize, usize, usize, usize)>,
    deep: Option<(usize, usize, usize, usize)>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let g = game(py, rules, streets, fantasy_values.as_slice()?, value)?;
    let search = search_of(search)?;
    let deep = match deep {
        Some((among, deals, next_among, next_deals)) => {
            if deals > MOST_DEALS || next_deals > MOST_DEALS {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "a deep search takes at most {MOST_DEALS} deals a street, \
                     not {deals} and {next_deals}"
                )));
            }
            Some(Deep {
                among,
                deals,
                next_among,
                next_deals,
            })
        }
        None => None,
    };
    let positions: Vec<Position> = decisions.into_iter().map(position).collect();
    let results = py
        .detach(|| play_policies(&g, &positions, dreams, ahead, search, deep, threads))
        .map_err(pyo3::exceptions::PyRuntimeError::new_err)?;
    results
        .into_iter()
        .map(|r| match r {
            Ok(dest) => {
                let codes: Vec<i64> = dest.into_iter().map(i64::from).collect();
                Ok(pyo3::types::PyTuple::new(py, codes)?.into_any())
            }
            Err(why) => Ok(unplayable(py, why).into_value(py).into_bound(py).into_any()),
        })
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(policy_plays, m)?)?;
    m.add_class::<StreetGrade>()?;
    m.add_function(wrap_pyfunction!(grade_street_decisions, m)?)?;
    m.add_function(wrap_pyfunction!(rollout_values, m)?)?;
    Ok(())
}
