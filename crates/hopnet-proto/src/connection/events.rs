//! The events a connection holds for the application, charged to the reassembly budget: a
//! delivered payload not yet polled costs its buffer's capacity (more than its length when it
//! went into a recycled buffer) and [`EVENT_OVERHEAD`] more (the event, its queue slot, the
//! allocation), so that empty messages cannot pile up for free while the application is
//! busy.

use std::collections::VecDeque;

use crate::event::Event;

/// What a delivered payload not yet polled costs besides its bytes.
const EVENT_OVERHEAD: usize = 64;

/// The events not yet polled, and what they cost.
#[derive(Debug, Default)]
pub(crate) struct EventQueue {
    events: VecDeque<Event>,
    bytes: usize,
}

fn charge(event: &Event) -> usize {
    match event {
        Event::Message { bytes, .. } => bytes.capacity() + EVENT_OVERHEAD,
        _ => 0,
    }
}

impl EventQueue {
    pub fn push(&mut self, event: Event) {
        self.bytes += charge(&event);
        self.events.push_back(event);
    }

    pub fn pop(&mut self) -> Option<Event> {
        let event = self.events.pop_front()?;
        self.bytes -= charge(&event);
        Some(event)
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Bytes charged to the reassembly budget.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}
