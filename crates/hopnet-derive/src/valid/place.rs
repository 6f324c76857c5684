//! Placement and combinations, read from the table of attributes (`attr/rules.rs`): every
//! option must stand where its row allows, at most one of each group, and nothing beside an
//! option that stands alone.

use crate::attr::Attrs;
use crate::attr::rules::Place;
use crate::ctxt::Ctxt;

/// Checks the options of one item that stands at `place`.
pub fn check(cx: &Ctxt, attrs: &Attrs, place: Place) {
    let here: Vec<_> = attrs
        .list
        .iter()
        .filter(|a| {
            let allowed = a.rule.places.contains(&place);
            if !allowed {
                cx.error(
                    a.span,
                    format_args!("`{}` is not allowed here: {}", a.rule.name, a.rule.belongs),
                );
            }
            allowed
        })
        .collect();
    if let Some(alone) = here.iter().find(|a| a.rule.alone.is_some()) {
        let what = alone.rule.alone.unwrap_or_default();
        for other in here.iter().filter(|a| a.rule.name != alone.rule.name) {
            cx.error(
                other.span,
                format_args!("`{}` has no effect on {what}", other.rule.name),
            );
        }
        return;
    }
    let groups = |a: &crate::attr::Attr| {
        a.rule
            .groups
            .iter()
            .filter(|(at, _)| *at == place)
            .map(|(_, group)| *group)
            .collect::<Vec<_>>()
    };
    for (i, a) in here.iter().enumerate() {
        for group in groups(a) {
            if let Some(first) = here[..i].iter().find(|b| groups(b).contains(&group)) {
                cx.error(
                    a.span,
                    format_args!(
                        "`{}` conflicts with `{}`: {}",
                        a.rule.name,
                        first.rule.name,
                        group.reason()
                    ),
                );
            }
        }
    }
}
