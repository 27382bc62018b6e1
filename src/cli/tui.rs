//! `docket board --interactive`: the board in the terminal, live (it loads again by itself when
//! the workspace changes). Arrow keys (or h j k l) move between columns and cards, Enter opens
//! the issue, `<` and `>` move the card to the previous or next status, `r` reloads, `q` quits. Every read and write is a tool call, like every other
//! command's, so an agent watching the board hears of a move made here.

use std::io::IsTerminal;

use super::Core;
use super::args::{BoardArgs, ShowArgs, WorkspaceArg};
use super::commands::{blocked_ids, priority_rank, priority_tag};
use crate::generated::IssueStatus;
use crate::generated::arguments::IssuesUpdateInput;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState, Paragraph, Wrap};
use ratatui::{DefaultTerminal, Frame};

/// The columns, in the order a card moves through them.
const STATUSES: [IssueStatus; 3] = [IssueStatus::Open, IssueStatus::InProgress, IssueStatus::Closed];

/// Cards loaded per column (the closed column keeps the most recently updated page).
const MAX_CARDS: usize = 500;

const KEYS: &str = "←→ column  ↑↓ card  Enter open  < > move  r reload  q quit  ⊘ blocked";

struct Card {
    id: String,
    line: String,
}

struct Board {
    columns: Vec<(usize, Vec<Card>)>,
    states: Vec<ListState>,
    column: usize,
    /// The issue shown over the board (title, text) and how far it is scrolled.
    detail: Option<(String, String, u16)>,
    message: String,
    /// The workspace's generation the cards were loaded at: when it moves (an agent's write, a
    /// file edited by hand), the board loads again by itself.
    generation: u64,
}

/// How often the board looks for changes while no key is pressed.
const WATCH: std::time::Duration = std::time::Duration::from_millis(500);

pub(super) fn run(core: &Core, a: &BoardArgs) -> Result<String, String> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err("the interactive board needs a terminal; `docket board` prints the board instead".into());
    }
    let mut board = Board {
        columns: Vec::new(),
        states: Vec::new(),
        column: 0,
        detail: None,
        message: String::new(),
        generation: 0,
    };
    board.load(core, a)?;
    // Printed warnings would draw over the board: they go to its message line instead.
    core.hold_warnings();
    let mut terminal = ratatui::init();
    let result = board.run(core, a, &mut terminal);
    ratatui::restore();
    result.map(|()| String::new())
}

impl Board {
    fn load(&mut self, core: &Core, a: &BoardArgs) -> Result<(), String> {
        self.generation = core.app.store.generation().unwrap_or(self.generation);
        let blocked = blocked_ids(core)?;
        let mut columns = Vec::new();
        for status in STATUSES {
            let closed = status == IssueStatus::Closed;
            let size = crate::generated::limits::issues_list::MAX_PAGE_SIZE as i64;
            let (mut page, _) = core.call_as(&a.to_arguments(status, size, None))?;
            let total = page.total_count.max(0) as usize;
            let mut issues = page.issues.take().unwrap_or_default();
            while !closed
                && issues.len() < MAX_CARDS
                && let Some(cursor) = page.next_cursor.take()
            {
                page = core.call_as(&a.to_arguments(status, size, Some(&cursor)))?.0;
                issues.extend(page.issues.take().unwrap_or_default());
            }
            if !closed {
                issues.sort_by_key(|r| std::cmp::Reverse(r.priority.map(priority_rank).unwrap_or(0)));
            }
            let cards: Vec<Card> = issues
                .iter()
                .map(|r| Card {
                    id: r.id.clone(),
                    line: format!(
                        "{} {:<4} {}{}",
                        r.id,
                        r.priority.map_or("", priority_tag),
                        if blocked.contains(&r.id) { "⊘ " } else { "" },
                        r.title.as_deref().unwrap_or_default()
                    ),
                })
                .collect();
            columns.push((total, cards));
        }
        self.states.resize_with(columns.len(), ListState::default);
        for (i, (state, (_, cards))) in self.states.iter_mut().zip(&columns).enumerate() {
            // The card selected before stays selected where it still is in the column.
            let was = state.selected().and_then(|at| self.columns.get(i)?.1.get(at)).map(|c| c.id.as_str());
            let at = was
                .and_then(|id| cards.iter().position(|c| c.id == id))
                .unwrap_or(state.selected().unwrap_or(0).min(cards.len().saturating_sub(1)));
            state.select((!cards.is_empty()).then_some(at));
        }
        self.columns = columns;
        Ok(())
    }

    fn selected(&self) -> Option<&Card> {
        let (_, cards) = self.columns.get(self.column)?;
        cards.get(self.states[self.column].selected()?)
    }

    fn run(&mut self, core: &Core, a: &BoardArgs, terminal: &mut DefaultTerminal) -> Result<(), String> {
        loop {
            terminal.draw(|f| self.draw(f)).map_err(|e| format!("cannot draw the board: {e}"))?;
            if !event::poll(WATCH).map_err(|e| format!("cannot read the keyboard: {e}"))? {
                let moved = core.app.store.generation().is_ok_and(|g| g != self.generation);
                if moved && let Err(e) = self.load(core, a) {
                    self.message = e;
                }
                continue;
            }
            let Event::Key(key) = event::read().map_err(|e| format!("cannot read the keyboard: {e}"))? else {
                continue;
            };
            if key.kind != KeyEventKind::Press {
                continue;
            }
            if let Some((_, _, scroll)) = self.detail.as_mut() {
                match key.code {
                    KeyCode::Down | KeyCode::Char('j') => *scroll = scroll.saturating_add(1),
                    KeyCode::Up | KeyCode::Char('k') => *scroll = scroll.saturating_sub(1),
                    KeyCode::Char('q') => return Ok(()),
                    _ => self.detail = None,
                }
                continue;
            }
            match key.code {
                KeyCode::Char('q') | KeyCode::Esc => return Ok(()),
                KeyCode::Left | KeyCode::Char('h') => self.column = self.column.saturating_sub(1),
                KeyCode::Right | KeyCode::Char('l') => self.column = (self.column + 1).min(STATUSES.len() - 1),
                KeyCode::Down | KeyCode::Char('j') => self.states[self.column].select_next(),
                KeyCode::Up | KeyCode::Char('k') => self.states[self.column].select_previous(),
                KeyCode::Enter => self.open(core, terminal.size().map_or(80, |s| s.width)),
                KeyCode::Char('>') => self.move_card(core, a, 1),
                KeyCode::Char('<') => self.move_card(core, a, -1),
                KeyCode::Char('r') => {
                    self.message = match self.load(core, a) {
                        Ok(()) => "Reloaded.".into(),
                        Err(e) => e,
                    }
                }
                _ => {}
            }
            if let Some(last) = core.take_warnings().pop() {
                self.message = format!("warning: {last}");
            }
            let len = self.columns[self.column].1.len();
            let state = &mut self.states[self.column];
            if state.selected().is_some_and(|i| i >= len) {
                state.select(len.checked_sub(1));
            }
        }
    }

    /// Shows the selected issue as `docket show` prints it, wrapped to the window it opens in.
    fn open(&mut self, core: &Core, width: u16) {
        let Some(id) = self.selected().map(|c| c.id.clone()) else { return };
        let args = ShowArgs { id: id.clone(), json: false, ws: WorkspaceArg::default() };
        // The window is 90% of the screen, less its borders.
        let inside = usize::from(width) * 9 / 10;
        self.detail = match super::commands::show_at(core, &args, inside.saturating_sub(3).max(20)) {
            Ok(text) => Some((id, text, 0)),
            Err(e) => {
                self.message = e;
                None
            }
        };
    }

    fn move_card(&mut self, core: &Core, a: &BoardArgs, step: isize) {
        let Some(id) = self.selected().map(|c| c.id.clone()) else { return };
        let Some(to) = self.column.checked_add_signed(step).filter(|c| *c < STATUSES.len()) else { return };
        let args = IssuesUpdateInput {
            id: id.clone(),
            status: Some(STATUSES[to].to_string()),
            ..IssuesUpdateInput::default()
        };
        self.message = match core.call(&args) {
            Ok(_) => format!("{id} is {} now.", STATUSES[to]),
            Err(e) => e,
        };
        if let Err(e) = self.load(core, a) {
            self.message = e;
        }
        self.column = to;
        if let Some(i) = self.columns[to].1.iter().position(|c| c.id == id) {
            self.states[to].select(Some(i));
        }
    }

    fn draw(&mut self, f: &mut Frame) {
        let [body, footer] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(f.area());
        let areas = Layout::horizontal([Constraint::Ratio(1, 3); 3]).split(body);
        for (i, ((count, cards), area)) in self.columns.iter().zip(areas.iter()).enumerate() {
            let title = format!(" {} ({count}) ", STATUSES[i].as_str().to_uppercase());
            let focused = i == self.column;
            let border = if focused { Style::new().add_modifier(Modifier::BOLD) } else { Style::new() };
            let items: Vec<ListItem> = cards.iter().map(|c| ListItem::new(c.line.as_str())).collect();
            let list = List::new(items)
                .block(Block::new().borders(Borders::ALL).title(title).border_style(border))
                .highlight_style(Style::new().add_modifier(if focused { Modifier::REVERSED } else { Modifier::BOLD }));
            f.render_stateful_widget(list, *area, &mut self.states[i]);
        }
        let line = if self.message.is_empty() { KEYS.to_string() } else { format!("{}  ·  {KEYS}", self.message) };
        f.render_widget(Paragraph::new(Line::from(line)), footer);
        if let Some((id, text, scroll)) = &self.detail {
            let area = centered(body, 90, 90);
            f.render_widget(Clear, area);
            let block = Block::new().borders(Borders::ALL).title(format!(" {id}: any key closes, ↑↓ scroll "));
            f.render_widget(
                Paragraph::new(text.as_str()).block(block).wrap(Wrap { trim: false }).scroll((*scroll, 0)),
                area,
            );
        }
    }
}

/// `percent_x` by `percent_y` of `area`, centred.
fn centered(area: Rect, percent_x: u16, percent_y: u16) -> Rect {
    let [_, middle, _] = Layout::vertical([
        Constraint::Percentage((100 - percent_y) / 2),
        Constraint::Percentage(percent_y),
        Constraint::Percentage((100 - percent_y) / 2),
    ])
    .areas(area);
    let [_, centre, _] = Layout::horizontal([
        Constraint::Percentage((100 - percent_x) / 2),
        Constraint::Percentage(percent_x),
        Constraint::Percentage((100 - percent_x) / 2),
    ])
    .areas(middle);
    centre
}
