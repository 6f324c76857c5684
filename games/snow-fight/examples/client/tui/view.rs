//! What the terminal shows: the world from above, a status line and the keys.

use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use snow_fight::{Entity, EntityKind, ObjectKind, ObjectState};

use super::Tui;

impl Tui {
    pub(super) fn draw(&self, frame: &mut ratatui::Frame) {
        let [map_area, status_area, help_area] = Layout::vertical([
            Constraint::Min(3),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(frame.area());
        let title = match self.game.player() {
            Some(p) => format!(" snow_fight: player {p} on {} ", self.server),
            None => format!(" snow_fight: {} ", self.server),
        };
        let block = Block::default().borders(Borders::ALL).title(title);
        let inner = block.inner(map_area);
        frame.render_widget(block, map_area);
        frame.render_widget(
            Paragraph::new(self.map_lines(inner.width, inner.height)),
            inner,
        );
        frame.render_widget(Paragraph::new(self.status_line()), status_area);
        frame.render_widget(
            Paragraph::new("arrows: walk (opposite arrow or s: stop)  b: break nearest  space: throw at nearest player  q: quit")
                .style(Style::default().fg(Color::DarkGray)),
            help_area,
        );
    }

    /// The world from above, north up, scaled to fit (a cell is twice as tall as wide).
    fn map_lines(&self, width: u16, height: u16) -> Vec<Line<'static>> {
        let (w, h) = (self.config.width, self.config.height);
        let sy = (height as f32 / h).min(width as f32 / (2.0 * w)).max(0.05);
        let sx = 2.0 * sy;
        let cols = ((w * sx).ceil() as usize).clamp(1, width.max(1) as usize);
        let rows = ((h * sy).ceil() as usize).clamp(1, height.max(1) as usize);
        let mut grid = vec![vec![(' ', Style::default()); cols]; rows];
        let mut put = |x: f32, y: f32, c: char, style: Style| {
            let col = ((x * sx) as usize).min(cols - 1);
            let row = (((h - y) * sy) as usize).min(rows - 1);
            grid[row][col] = (c, style);
        };
        let me = self.game.player();
        // Objects first, players on top; as the view shows them, between snapshots.
        for e in &self.drawn {
            if let EntityKind::Object(o) = &e.kind {
                let (c, color) = match (o.state, o.kind, o.breakable) {
                    (ObjectState::Held { .. }, _, _) => continue,
                    (ObjectState::Flying { .. }, _, _) => ('*', Color::Yellow),
                    (_, ObjectKind::Tree, false) => ('T', Color::Green),
                    (_, ObjectKind::Tree, true) => ('t', Color::LightGreen),
                    (_, ObjectKind::Mushroom, _) => ('m', Color::Magenta),
                };
                put(o.pos.x, o.pos.y, c, Style::default().fg(color));
            }
        }
        for p in self.drawn.iter().filter_map(Entity::player) {
            let low = p.health * 3 < p.max_health;
            let (c, mut style) = if Some(p.owner) == me {
                (
                    '@',
                    Style::default()
                        .fg(Color::Yellow)
                        .add_modifier(Modifier::BOLD),
                )
            } else {
                (
                    char::from_digit(p.owner % 10, 10).unwrap_or('P'),
                    Style::default().fg(Color::Cyan),
                )
            };
            if low {
                style = style.fg(Color::Red);
            }
            put(p.pos.x, p.pos.y, c, style);
        }
        grid.into_iter()
            .map(|row| {
                Line::from(
                    row.into_iter()
                        .map(|(c, s)| Span::styled(c.to_string(), s))
                        .collect::<Vec<_>>(),
                )
            })
            .collect()
    }

    fn status_line(&self) -> Line<'static> {
        let s = self.game.stats();
        let mut parts = Vec::new();
        match (self.game.player(), self.game.me()) {
            (Some(_), Some(me)) => {
                parts.push(format!("health {}/{}", me.health, me.max_health));
                if let Some(h) = me.holding {
                    parts.push(format!("holding {h}"));
                }
                if let Some(b) = me.breaking {
                    let left = self
                        .game
                        .entities()
                        .iter()
                        .find(|e| e.id == b)
                        .and_then(Entity::object)
                        .map_or(0.0, |o| o.durability);
                    parts.push(format!("breaking {b} ({left:.0} left)"));
                }
            }
            (Some(_), None) => parts.push("dead: wait for the next round".into()),
            (None, _) => {}
        }
        let alive = self
            .game
            .entities()
            .iter()
            .filter_map(Entity::player)
            .count();
        parts.push(format!("{alive} alive"));
        parts.push(match s.rtts.last() {
            Some(rtt) => format!("RTT {:.0} ms", rtt.as_secs_f64() * 1000.0),
            None => "RTT -".into(),
        });
        parts.push(format!("loss {:.1}%", s.loss() * 100.0));
        let v = self.view.stats();
        parts.push(format!(
            "{} corrections (largest {:.2})",
            v.corrections, v.largest
        ));
        if self.game.wants_deltas() {
            parts.push(format!("{} deltas", s.deltas));
        }
        parts.push(format!("won {} lost {}", s.won, s.lost));
        parts.push(self.message.clone());
        Line::from(parts.join(" | ")).style(Style::default().add_modifier(Modifier::REVERSED))
    }
}
