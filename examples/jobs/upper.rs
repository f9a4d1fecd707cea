// Reads stdin and writes it to stdout in upper case: a WASI command for an OON job.
// rustup target add wasm32-wasip1 && rustc --target wasm32-wasip1 -O -o upper.wasm upper.rs
use std::io::{self, Read, Write};

fn main() {
    let mut input = String::new();
    io::stdin().read_to_string(&mut input).expect("stdin");
    io::stdout().write_all(input.to_uppercase().as_bytes()).expect("stdout");
}
