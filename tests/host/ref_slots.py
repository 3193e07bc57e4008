"""What the slot-by-slot references (pfair_ref, gdq_ref) share: driving a
model through a run with the task set's events."""


def run_slots(step, slots, events):
    """[step(t, due) for t in 0..slots-1], due being the (action, name)
    pairs of the events [(time, action, name)] (in time order) that come
    at or before t and were not given yet."""
    rows, k = [], 0
    for t in range(slots):
        due = []
        while k < len(events) and events[k][0] <= t:
            due.append(events[k][1:])
            k += 1
        rows.append(step(t, due))
    return rows
