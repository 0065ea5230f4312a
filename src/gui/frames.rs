//! Frame times: the debug overlay's recent frames, and the frame and event logs the timing
//! scripts read (`RANKLENS_FRAME_LOG`, `RANKLENS_LOG`).

/// Frame times for the debug overlay and the frame log.
#[derive(Default)]
pub struct FrameStats {
    /// Recent frame CPU times in milliseconds.
    pub recent_ms: std::collections::VecDeque<f32>,
    /// Longest frame since start.
    pub max_ms: f32,
    /// Frames drawn.
    pub frames: u64,
    /// Time spent in `logic` this frame.
    pub(super) logic_ms: f32,
    /// Where to append one line per frame, if asked (`RANKLENS_FRAME_LOG`).
    pub(super) log: Option<std::fs::File>,
    /// Where to append what the app did and when (`RANKLENS_LOG`): corpus loaded, models
    /// loaded, encodings done, each ranking with which columns are ready.
    pub(super) events: Option<std::fs::File>,
    /// When the app started, for the event log's times.
    pub(super) started: Option<std::time::Instant>,
    /// The stage each running job was last logged in (so the log times every stage).
    pub(super) stages: std::collections::BTreeMap<String, String>,
}

impl FrameStats {
    /// Append `what` to the event log, with the seconds since the app started.
    pub(super) fn event(&mut self, what: &str) {
        use std::io::Write;
        let secs = self.started.map_or(0.0, |s| s.elapsed().as_secs_f64());
        if let Some(f) = &mut self.events {
            let _ = writeln!(f, "{secs:.2} {what}");
        }
    }

    /// Log a job's stage when it changed since the last frame (`stage Encoding (dense): …`):
    /// the event log then says where a cold open's minutes went.
    pub(super) fn stage(&mut self, job: &str, stage: &str) {
        if self.events.is_none() || stage.is_empty() || self.stages.get(job).is_some_and(|s| s == stage) {
            return;
        }
        self.stages.insert(job.to_string(), stage.to_string());
        self.event(&format!("stage {job}: {stage}"));
    }

    pub(super) fn record(&mut self, ms: f32, busy: bool, whole_ms: Option<f32>) {
        use std::io::Write;
        self.frames += 1;
        self.max_ms = self.max_ms.max(ms);
        self.recent_ms.push_back(ms);
        if self.recent_ms.len() > 240 {
            self.recent_ms.pop_front();
        }
        if let Some(f) = &mut self.log {
            // Frame number, wall-clock time (ms since the Unix epoch, to line frames up with
            // outside events), CPU time of the frame (ms), whether background work was running,
            // and eframe's time for the whole previous frame (tessellation and painting too).
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            let whole = whole_ms.map_or("-".to_string(), |w| format!("{w:.3}"));
            let _ = writeln!(f, "{} {} {ms:.3} {} {whole}", self.frames, now.as_millis(), u8::from(busy));
        }
    }
}
