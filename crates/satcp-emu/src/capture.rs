//! `--pcap` in an emulation: what a link direction sent, as the real
//! Ethernet frames, each stamped with the wall-clock time its first bit
//! left (the time the simulator's captures record, on the hosts' clock,
//! so that a capture in a host lines up with it).

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use satcp_core::engine::SimTime;
use std::fs::File;
use std::io::BufWriter;
use std::time::Duration;

pub struct FrameCapture {
    writer: PcapWriter<BufWriter<File>>,
    /// The wall-clock time of the emulation's time zero, ns.
    pub wall_origin_ns: u64,
    pub packets: u64,
}

impl FrameCapture {
    pub fn create(path: &str) -> std::io::Result<FrameCapture> {
        let header = PcapHeader {
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            snaplen: 65_535,
            ..PcapHeader::default()
        };
        let file = BufWriter::new(File::create(path)?);
        let writer = PcapWriter::with_header(file, header).map_err(std::io::Error::other)?;
        Ok(FrameCapture {
            writer,
            wall_origin_ns: 0,
            packets: 0,
        })
    }

    pub fn write(&mut self, at: SimTime, frame: &[u8]) -> std::io::Result<()> {
        let ts = Duration::from_nanos(self.wall_origin_ns + at.0);
        self.writer
            .write_packet(&PcapPacket::new(ts, frame.len() as u32, frame))
            .map_err(std::io::Error::other)?;
        self.packets += 1;
        Ok(())
    }

    pub fn finish(self) -> std::io::Result<()> {
        std::io::Write::flush(&mut self.writer.into_writer())
    }
}
