//! A packet observer that writes what crosses one link direction as a
//! pcap file (raw IPv4, nanosecond timestamps = simulated time), readable
//! by Wireshark and tshark as a real capture. Each packet is recorded when
//! its first bit leaves the transmitter, headers only (`metrics::wire`).

use super::wire;
use crate::net::observer::{PacketEvent, PacketEventKind, PacketObserver};
use crate::net::packet::LinkId;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Duration;

pub struct PcapCapture {
    link: LinkId,
    writer: Option<PcapWriter<BufWriter<File>>>,
    ip_id: u16,
    pub packets: u64,
    /// The first write error, if any (the capture then stops).
    pub error: Option<String>,
}

impl PcapCapture {
    pub fn create(path: &Path, link: LinkId) -> std::io::Result<PcapCapture> {
        let file = BufWriter::new(File::create(path)?);
        let header = PcapHeader {
            datalink: DataLink::IPV4,
            ts_resolution: TsResolution::NanoSecond,
            snaplen: 65_535,
            ..PcapHeader::default()
        };
        let writer = PcapWriter::with_header(file, header).map_err(std::io::Error::other)?;
        Ok(PcapCapture {
            link,
            writer: Some(writer),
            ip_id: 0,
            packets: 0,
            error: None,
        })
    }

    /// Flushes the file; returns the first error met.
    pub fn finish(&mut self) -> Result<u64, String> {
        if let Some(w) = self.writer.take() {
            let mut inner = w.into_writer();
            if let Err(e) = std::io::Write::flush(&mut inner) {
                self.error.get_or_insert(e.to_string());
            }
        }
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(self.packets),
        }
    }
}

/// A capture the caller keeps a handle on, to finish it after the run.
pub struct SharedCapture(pub std::rc::Rc<std::cell::RefCell<PcapCapture>>);

impl PacketObserver for SharedCapture {
    fn on_packet(&mut self, ev: &PacketEvent) {
        self.0.borrow_mut().on_packet(ev);
    }
}

impl PacketObserver for PcapCapture {
    fn on_packet(&mut self, ev: &PacketEvent) {
        if ev.link != self.link || ev.kind != PacketEventKind::Transmit {
            return;
        }
        let Some(w) = self.writer.as_mut() else {
            return;
        };
        let bytes = wire::headers_between(ev.packet, ev.ends, self.ip_id);
        self.ip_id = self.ip_id.wrapping_add(1);
        let ts = Duration::from_nanos(ev.time.0);
        if let Err(e) = w.write_packet(&PcapPacket::new(ts, ev.packet.size, &bytes)) {
            self.error = Some(e.to_string());
            self.writer = None;
            return;
        }
        self.packets += 1;
    }
}
