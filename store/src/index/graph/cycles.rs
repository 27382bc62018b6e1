//! Exact cycle checks over the whole `blockedBy` graph: no depth cap, no recursion, each linear
//! in the size of the graph (every edge is followed at most once per search).

use std::collections::{HashMap, HashSet, VecDeque};

use super::{Graph, key};

/// A cycle longer than this is shown by its ends ("A -> B -> ... 9,990 more ... -> Z -> A").
const SHOWN_ENDS: usize = 6;

/// The members of a cycle `[a, b, ..., a]` that [`cycle_text`] names (all, or its ends).
pub fn cycle_named(cycle: &[String]) -> Vec<&String> {
    if cycle.len() <= SHOWN_ENDS * 2 + 1 {
        return cycle.iter().collect();
    }
    cycle[..SHOWN_ENDS].iter().chain(&cycle[cycle.len() - SHOWN_ENDS..]).collect()
}

/// A cycle `[a, b, ..., a]` as text, its middle elided when it is long (an answer names a
/// 10,000-issue cycle in a line, not 100 KB).
pub fn cycle_text(cycle: &[String]) -> String {
    if cycle.len() <= SHOWN_ENDS * 2 + 1 {
        return cycle.join(" -> ");
    }
    let (head, tail) = (&cycle[..SHOWN_ENDS], &cycle[cycle.len() - SHOWN_ENDS..]);
    let hidden = cycle.len() - SHOWN_ENDS * 2;
    format!("{} -> ... {hidden} more ... -> {} ({} issues)", head.join(" -> "), tail.join(" -> "), cycle.len() - 1)
}

impl Graph {
    /// The cycle that `id` blocked by `blockers` would close, as `[id, b, ..., id]` (a shortest
    /// one): a breadth-first search from the blockers back to `id`, over the whole graph.
    pub fn cycle_with(&self, id: &str, blockers: &[String]) -> Option<Vec<String>> {
        let target = key(id);
        let mut came_from: HashMap<String, Option<String>> = HashMap::new();
        let mut queue: VecDeque<String> = VecDeque::new();
        for b in blockers.iter().map(|b| key(b)) {
            if !came_from.contains_key(&b) {
                came_from.insert(b.clone(), None);
                queue.push_back(b);
            }
        }
        while let Some(at) = queue.pop_front() {
            if at == target {
                let mut path = Vec::new();
                let mut step = Some(at);
                while let Some(k) = step {
                    step = came_from.get(&k).cloned().flatten();
                    path.push(k);
                }
                path.push(target);
                path.reverse();
                return Some(path.iter().map(|k| self.display(k)).collect());
            }
            for next in self.edges.get(&at).map(Vec::as_slice).unwrap_or_default() {
                if !came_from.contains_key(next) {
                    came_from.insert(next.clone(), Some(at.clone()));
                    queue.push_back(next.clone());
                }
            }
        }
        None
    }

    /// Every cycle of blockedBy edges (made by hand edits): one per strongly connected component
    /// that holds a cycle, as `[a, b, ..., a]` from its lowest key, in key order. Tarjan's
    /// algorithm with an explicit stack, so a 10,000-issue cycle cannot overflow the thread's.
    pub fn cycles(&self) -> Vec<Vec<String>> {
        let mut keys: Vec<&String> = self.edges.keys().collect();
        keys.sort();
        let number: HashMap<&str, usize> = keys.iter().enumerate().map(|(i, k)| (k.as_str(), i)).collect();
        // Only issues with blockers can be on a cycle: edges to others are dropped.
        let next: Vec<Vec<usize>> = keys
            .iter()
            .map(|k| self.edges[*k].iter().filter_map(|b| number.get(b.as_str()).copied()).collect())
            .collect();
        let mut found: Vec<Vec<String>> = strongly_connected(&next)
            .into_iter()
            .filter(|c| c.len() > 1 || next[c[0]].contains(&c[0]))
            .map(|c| {
                let start = *c.iter().min().expect("a component has a member");
                let within: HashSet<usize> = c.into_iter().collect();
                shortest_loop(&next, start, &within).iter().map(|&i| self.display(keys[i])).collect()
            })
            .collect();
        found.sort();
        found
    }
}

/// Tarjan's bookkeeping: each node's visit number and lowest reachable number, the nodes of the
/// components still open, and the depth-first path as (node, next edge to follow).
struct Tarjan {
    order: Vec<usize>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    calls: Vec<(usize, usize)>,
    counter: usize,
}

impl Tarjan {
    const UNSEEN: usize = usize::MAX;

    fn enter(&mut self, v: usize) {
        (self.order[v], self.low[v]) = (self.counter, self.counter);
        self.counter += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        self.calls.push((v, 0));
    }
}

/// The strongly connected components of the graph `next` (node -> successors), iteratively.
fn strongly_connected(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = next.len();
    let mut t = Tarjan {
        order: vec![Tarjan::UNSEEN; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        calls: Vec::new(),
        counter: 0,
    };
    let mut components = Vec::new();
    for root in 0..n {
        if t.order[root] != Tarjan::UNSEEN {
            continue;
        }
        t.enter(root);
        while let Some(&(v, edge)) = t.calls.last() {
            if let Some(&w) = next[v].get(edge) {
                t.calls.last_mut().expect("a call is open").1 += 1;
                if t.order[w] == Tarjan::UNSEEN {
                    t.enter(w);
                } else if t.on_stack[w] {
                    t.low[v] = t.low[v].min(t.order[w]);
                }
                continue;
            }
            t.calls.pop();
            if let Some(&(parent, _)) = t.calls.last() {
                t.low[parent] = t.low[parent].min(t.low[v]);
            }
            if t.low[v] == t.order[v] {
                let mut component = Vec::new();
                while let Some(w) = t.stack.pop() {
                    t.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

/// A shortest way from `start` back to itself inside `within` (which holds a cycle through it):
/// `[start, ..., start]`.
fn shortest_loop(next: &[Vec<usize>], start: usize, within: &HashSet<usize>) -> Vec<usize> {
    let mut came_from: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for &w in &next[at] {
            if w == start {
                let mut path = vec![start, at];
                let mut step = at;
                while step != start {
                    step = came_from[&step];
                    path.push(step);
                }
                path.reverse();
                return path;
            }
            if within.contains(&w) && !came_from.contains_key(&w) {
                came_from.insert(w, at);
                queue.push_back(w);
            }
        }
    }
    vec![start, start]
}
