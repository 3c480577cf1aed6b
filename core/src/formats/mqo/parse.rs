//! The MQO text parser: bytes to an [`MqoDocument`].
//!
//! The file is read as bytes, line by line (CRLF or LF), because a `BVertex` chunk holds raw
//! binary floats in the middle of the text and names are in the file's code page (cp932 unless
//! a `CodePage` line says otherwise); only names and paths are decoded. Chunk and attribute
//! names are compared case-insensitively. Every count the file declares is checked against the
//! bytes left before anything is reserved, so memory stays proportional to the input.

use super::document::{
    CodePage, MirrorMode, MqoDocument, MqoFace, MqoMaterial, MqoObject, MqoVersion,
};
use super::report::{MqoError, MqoNote};
use crate::formats::LoadLimits;
use crate::i18n::{Message, MessageArg};

/// The fewest bytes a line of each list can take, for checking declared counts.
const MIN_VERTEX_LINE_BYTES: usize = 6; // "0 0 0\n"
const MIN_FACE_LINE_BYTES: usize = 9; // "2 V(0 1)\n"
const MIN_MATERIAL_LINE_BYTES: usize = 3; // "\"\"\n"

/// What a value on a line stands for; named in a message only when the value is wrong.
#[derive(Debug, Clone, Copy)]
enum What {
    /// A word of the resources (`load.mqo.what.vertex_count`).
    Word(&'static str),
    /// The value of one of MQO's own attributes (`dif`, `lathe_seg`), named as the file names it.
    Value(&'static str),
}

/// The declared counts of the lists.
const VERTEX_COUNT: What = What::Word("load.mqo.what.vertex_count");
const FACE_COUNT: What = What::Word("load.mqo.what.face_count");
const MATERIAL_COUNT: What = What::Word("load.mqo.what.material_count");

impl What {
    fn message(self) -> Message {
        match self {
            What::Word(key) => Message::new(key),
            What::Value(name) => Message::new("load.mqo.what.value").arg("name", name),
        }
    }
}

/// "expected `text`": punctuation or a fixed word of the format.
fn expected_text(text: impl Into<MessageArg>) -> Message {
    Message::new("load.mqo.expected_text").arg("text", text)
}

/// "expected `what`" (a word of the resources, `load.mqo.what.*`).
fn expected(what: Message) -> Message {
    Message::new("load.mqo.expected").arg("what", what)
}

/// "expected an attribute such as `example`".
fn expected_attribute(example: &str) -> Message {
    expected(Message::new("load.mqo.what.attribute").arg("example", example))
}

/// "`name`(...) given twice".
fn given_twice(name: &str) -> Message {
    Message::new("load.mqo.given_twice").arg("name", name)
}

/// A chunk that holds more elements than it declares (`elements`: a word, `load.mqo.what.faces`).
fn holds_more(declared: usize, elements: &'static str) -> Message {
    Message::new("load.mqo.holds_more")
        .arg("declared", declared)
        .word("elements", elements)
}

/// A chunk that holds fewer or more elements than it declares.
fn holds_other(declared: usize, elements: &'static str, held: usize) -> Message {
    Message::new("load.mqo.holds_other")
        .arg("declared", declared)
        .word("elements", elements)
        .arg("held", held)
}

fn no_such_vertex(index: u32, count: usize) -> Message {
    Message::new("load.mqo.no_such_vertex")
        .arg("vertex", index as usize)
        .arg("count", count)
}

/// Parses an MQO file. Notes about what was read past go to `notes`.
pub fn parse_document(
    bytes: &[u8],
    limits: &LoadLimits,
    notes: &mut Vec<MqoNote>,
) -> Result<MqoDocument, MqoError> {
    let mut parser = Parser {
        input: Input::new(bytes),
        code_page: CodePage::Cp932,
        limits: *limits,
        notes,
    };
    parser.document()
}

/// One line of the file, without its line break.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    text: &'a [u8],
    /// 1-based.
    number: usize,
}

/// The bytes, handed out line by line or as raw binary.
struct Input<'a> {
    bytes: &'a [u8],
    position: usize,
    /// The 1-based number of the next line.
    next_line: usize,
}

impl<'a> Input<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            position: 0,
            next_line: 1,
        }
    }

    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.position)
    }

    fn next_line(&mut self) -> Option<Line<'a>> {
        let rest = self.bytes.get(self.position..)?;
        if rest.is_empty() {
            return None;
        }
        let (text, consumed) = match rest.iter().position(|&b| b == b'\n') {
            Some(end) => (&rest[..end], end + 1),
            None => (rest, rest.len()),
        };
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        self.position += consumed;
        let number = self.next_line;
        self.next_line += 1;
        Some(Line { text, number })
    }

    /// `count` raw bytes right after the current line (a `[size]` binary block).
    fn take(&mut self, count: usize) -> Option<&'a [u8]> {
        let end = self.position.checked_add(count)?;
        let taken = self.bytes.get(self.position..end)?;
        self.position = end;
        // Binary data may hold 0x0A bytes; they are not lines.
        Some(taken)
    }
}

/// A cursor over one line's bytes.
struct Tokens<'a> {
    line: Line<'a>,
    position: usize,
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b')
}

/// Bytes that end a bare word: white space and the format's punctuation.
fn ends_word(byte: u8) -> bool {
    is_space(byte) || matches!(byte, b'(' | b')' | b'{' | b'}' | b'"' | b'[' | b']')
}

impl<'a> Tokens<'a> {
    fn new(line: Line<'a>) -> Self {
        Self { line, position: 0 }
    }

    fn skip_space(&mut self) {
        while let Some(&byte) = self.line.text.get(self.position) {
            if !is_space(byte) {
                break;
            }
            self.position += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.line.text.get(self.position).copied()
    }

    fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// A bare word (possibly empty when the next byte is punctuation).
    fn word(&mut self) -> &'a [u8] {
        self.skip_space();
        let start = self.position;
        while let Some(&byte) = self.line.text.get(self.position) {
            if ends_word(byte) {
                break;
            }
            self.position += 1;
        }
        &self.line.text[start..self.position]
    }

    /// Consumes `byte` if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.position += 1;
            true
        } else {
            false
        }
    }

    /// A `"quoted"` string's bytes. Names never contain `"`: in cp932 no trail byte is 0x22.
    fn quoted(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.position;
        let rest = &self.line.text[start..];
        let end = rest.iter().position(|&b| b == b'"')?;
        self.position = start + end + 1;
        Some(&rest[..end])
    }

    /// The rest of the line from the cursor.
    fn rest(&mut self) -> &'a [u8] {
        self.skip_space();
        &self.line.text[self.position..]
    }
}

/// Whether a line opens a chunk (its last non-space byte is `{`).
fn opens_chunk(text: &[u8]) -> bool {
    text.iter().rev().find(|&&b| !is_space(b)) == Some(&b'{')
}

/// Whether a line closes a chunk (its first non-space byte is `}`).
fn closes_chunk(text: &[u8]) -> bool {
    text.iter().find(|&&b| !is_space(b)) == Some(&b'}')
}

/// The `N` of a line ending in `[N]` (a binary block of N bytes follows).
fn binary_size(text: &[u8]) -> Option<Result<usize, ()>> {
    let end = text.iter().rposition(|&b| !is_space(b))?;
    if text[end] != b']' {
        return None;
    }
    let start = text[..end].iter().rposition(|&b| b == b'[')?;
    let digits = std::str::from_utf8(&text[start + 1..end]).ok()?;
    Some(digits.trim().parse::<usize>().map_err(|_| ()))
}

fn lowercase(word: &[u8]) -> String {
    String::from_utf8_lossy(word).to_ascii_lowercase()
}

struct Parser<'a, 'n> {
    input: Input<'a>,
    code_page: CodePage,
    limits: LoadLimits,
    notes: &'n mut Vec<MqoNote>,
}

impl<'a> Parser<'a, '_> {
    fn decode(&self, bytes: &[u8]) -> String {
        let (text, _, _) = self.code_page.encoding().decode(bytes);
        text.into_owned()
    }

    /// An error at the cursor of `tokens`.
    fn error_at(&self, tokens: &Tokens<'_>, section: &str, message: Message) -> MqoError {
        let prefix = &tokens.line.text[..tokens.position.min(tokens.line.text.len())];
        let column = self.decode(prefix).chars().count() + 1;
        MqoError::Syntax {
            line: tokens.line.number,
            column,
            section: section.to_owned(),
            message,
        }
    }

    fn error_at_line(&self, line: usize, section: &str, message: Message) -> MqoError {
        MqoError::Syntax {
            line,
            column: 1,
            section: section.to_owned(),
            message,
        }
    }

    fn end_of_file(&self, section: &str, opened: usize) -> MqoError {
        MqoError::Syntax {
            line: self.input.next_line,
            column: 1,
            section: section.to_owned(),
            message: Message::new("load.mqo.unclosed_chunk").arg("opened", opened),
        }
    }

    fn number<T: std::str::FromStr>(
        &self,
        tokens: &mut Tokens<'_>,
        section: &str,
        what: What,
    ) -> Result<T, MqoError> {
        tokens.skip_space();
        let start = tokens.position;
        let word = tokens.word();
        let parsed = std::str::from_utf8(word)
            .ok()
            .and_then(|text| text.parse::<T>().ok());
        parsed.ok_or_else(|| {
            let at = Tokens {
                line: tokens.line,
                position: start,
            };
            let message = if word.is_empty() {
                Message::new("load.mqo.expected")
            } else {
                Message::new("load.mqo.expected_found").arg("found", self.decode(word))
            };
            self.error_at(&at, section, message.arg("what", what.message()))
        })
    }

    fn float(&self, tokens: &mut Tokens<'_>, section: &str, what: What) -> Result<f32, MqoError> {
        tokens.skip_space();
        let start = tokens.position;
        let value: f32 = self.number(tokens, section, what)?;
        if value.is_finite() {
            Ok(value)
        } else {
            let at = Tokens {
                line: tokens.line,
                position: start,
            };
            Err(self.error_at(
                &at,
                section,
                Message::new("load.mqo.not_finite").arg("what", what.message()),
            ))
        }
    }

    fn floats<const N: usize>(
        &self,
        tokens: &mut Tokens<'_>,
        section: &str,
        what: What,
    ) -> Result<[f32; N], MqoError> {
        let mut values = [0.0; N];
        for value in &mut values {
            *value = self.float(tokens, section, what)?;
        }
        Ok(values)
    }

    fn integer(&self, tokens: &mut Tokens<'_>, section: &str, what: What) -> Result<i64, MqoError> {
        self.number::<i64>(tokens, section, what)
    }

    fn unsigned(
        &self,
        tokens: &mut Tokens<'_>,
        section: &str,
        what: What,
    ) -> Result<u32, MqoError> {
        self.number::<u32>(tokens, section, what)
    }

    fn expect(&self, tokens: &mut Tokens<'_>, byte: u8, section: &str) -> Result<(), MqoError> {
        if tokens.eat(byte) {
            Ok(())
        } else {
            Err(self.error_at(tokens, section, expected_text(char::from(byte))))
        }
    }

    /// A declared element count, checked against the limits and the bytes left.
    fn count(
        &self,
        tokens: &mut Tokens<'_>,
        section: &str,
        what: What,
        min_line_bytes: usize,
    ) -> Result<usize, MqoError> {
        let count = self.number::<usize>(tokens, section, what)?;
        let fits = self.input.remaining() / min_line_bytes;
        if count > self.limits.max_elements {
            return Err(MqoError::LimitExceeded {
                line: tokens.line.number,
                message: Message::new("load.mqo.count_over_limit")
                    .arg("what", what.message())
                    .arg("count", count)
                    .arg("limit", self.limits.max_elements),
            });
        }
        if count > fits {
            return Err(self.error_at(
                tokens,
                section,
                Message::new("load.mqo.count_does_not_fit")
                    .arg("what", what.message())
                    .arg("count", count)
                    .arg("left", self.input.remaining()),
            ));
        }
        Ok(count)
    }

    fn document(&mut self) -> Result<MqoDocument, MqoError> {
        let mut document = MqoDocument::default();
        self.header(&mut document)?;
        while let Some(line) = self.input.next_line() {
            let mut tokens = Tokens::new(line);
            if tokens.at_end() {
                continue;
            }
            let keyword = lowercase(tokens.word());
            match keyword.as_str() {
                "eof" => break,
                "trialnoise" => return Err(MqoError::TrialNoise { line: line.number }),
                // The specification's own table spells it `InlcudeXml` once.
                "includexml" | "inlcudexml" => {
                    let name = match tokens.quoted() {
                        Some(name) => name,
                        None => tokens.rest(),
                    };
                    if name.is_empty() {
                        return Err(self.error_at(
                            &tokens,
                            "IncludeXml",
                            expected(Message::new("load.mqo.what.file_name")),
                        ));
                    }
                    document.include_xml.push(self.decode(name));
                }
                "codepage" => {
                    let value = tokens.word();
                    match lowercase(value).as_str() {
                        "932" | "cp932" | "shift_jis" | "sjis" => {
                            self.code_page = CodePage::Cp932;
                        }
                        "utf8" | "utf-8" | "65001" => self.code_page = CodePage::Utf8,
                        other => {
                            self.code_page = CodePage::Cp932;
                            self.notes.push(MqoNote::UnknownCodePage {
                                value: other.to_owned(),
                                line: line.number,
                            });
                        }
                    }
                    document.code_page = self.code_page;
                }
                "material" if opens_chunk(line.text) => {
                    let materials = self.materials(&mut tokens)?;
                    document.materials.extend(materials);
                }
                "object" if opens_chunk(line.text) => {
                    let object = self.object(&mut tokens)?;
                    document.objects.push(object);
                }
                _ => {
                    let name =
                        String::from_utf8_lossy(&line.text[..tokens.position.min(line.text.len())])
                            .trim()
                            .to_owned();
                    if opens_chunk(line.text) {
                        self.skip_chunk(line, &name)?;
                        self.notes.push(MqoNote::SkippedChunk {
                            name,
                            object: None,
                            line: line.number,
                        });
                    } else {
                        self.skip_binary(line, &name)?;
                        self.notes.push(MqoNote::UnknownAttribute {
                            name,
                            where_: Message::new("load.mqo.where.document"),
                            line: line.number,
                        });
                    }
                }
            }
        }
        Ok(document)
    }

    fn header(&mut self, document: &mut MqoDocument) -> Result<(), MqoError> {
        let first = self
            .input
            .next_line()
            .ok_or_else(|| self.error_at_line(1, "header", Message::new("load.mqo.empty_file")))?;
        let text = first
            .text
            .strip_prefix(b"\xEF\xBB\xBF")
            .unwrap_or(first.text);
        let text = String::from_utf8_lossy(text);
        if !text.trim().eq_ignore_ascii_case("Metasequoia Document") {
            return Err(self.error_at_line(
                first.number,
                "header",
                Message::new("load.mqo.not_mqo"),
            ));
        }
        let second = self
            .input
            .next_line()
            .ok_or_else(|| self.error_at_line(2, "header", expected_text("Format Text Ver 1.x")))?;
        let mut tokens = Tokens::new(second);
        if !tokens.word().eq_ignore_ascii_case(b"Format") {
            return Err(self.error_at(&tokens, "header", expected_text("Format Text Ver 1.x")));
        }
        let format = tokens.word();
        if !tokens.word().eq_ignore_ascii_case(b"Ver") {
            return Err(self.error_at(&tokens, "header", expected_text("Ver")));
        }
        let version_text = String::from_utf8_lossy(tokens.word()).into_owned();
        if format.eq_ignore_ascii_case(b"Compress") {
            return Err(MqoError::Unsupported {
                line: second.number,
                message: Message::new("load.mqo.compressed"),
            });
        }
        if !format.eq_ignore_ascii_case(b"Text") {
            return Err(MqoError::Unsupported {
                line: second.number,
                message: Message::new("load.mqo.unknown_format")
                    .arg("format", String::from_utf8_lossy(format).into_owned()),
            });
        }
        let mut parts = version_text.splitn(2, '.');
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().map_or(Some(0), |p| p.parse::<u32>().ok());
        let (Some(major), Some(minor)) = (major, minor) else {
            return Err(self.error_at(
                &tokens,
                "header",
                Message::new("load.mqo.bad_version").arg("version", version_text),
            ));
        };
        if major != 1 {
            return Err(MqoError::Unsupported {
                line: second.number,
                message: Message::new("load.mqo.unsupported_version").arg("version", version_text),
            });
        }
        if minor > 1 {
            self.notes.push(MqoNote::NewerMinorVersion {
                version: version_text,
            });
        }
        document.version = Some(MqoVersion { major, minor });
        Ok(())
    }

    /// Skips a line's binary block (`... [N]`) if it has one.
    fn skip_binary(&mut self, line: Line<'a>, section: &str) -> Result<Option<&'a [u8]>, MqoError> {
        match binary_size(line.text) {
            None => Ok(None),
            Some(Err(())) => Err(self.error_at_line(
                line.number,
                section,
                Message::new("load.mqo.bad_binary_size"),
            )),
            Some(Ok(size)) => {
                let remaining = self.input.remaining();
                self.input.take(size).map(Some).ok_or_else(|| {
                    self.error_at_line(
                        line.number,
                        section,
                        Message::new("load.mqo.binary_block_too_long")
                            .arg("size", size)
                            .arg("left", remaining),
                    )
                })
            }
        }
    }

    /// Skips to the `}` that closes the chunk `opening` opened, nested chunks and binary
    /// blocks included.
    fn skip_chunk(&mut self, opening: Line<'a>, section: &str) -> Result<(), MqoError> {
        let mut depth = 1usize;
        while let Some(line) = self.input.next_line() {
            if closes_chunk(line.text) {
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            } else if opens_chunk(line.text) {
                depth += 1;
            } else {
                self.skip_binary(line, section)?;
            }
        }
        Err(self.end_of_file(section, opening.number))
    }

    /// The lines of a chunk up to its closing `}`, each given to `each`.
    fn chunk_lines(
        &mut self,
        opening: Line<'a>,
        section: &str,
        mut each: impl FnMut(&mut Self, Line<'a>) -> Result<(), MqoError>,
    ) -> Result<(), MqoError> {
        while let Some(line) = self.input.next_line() {
            if closes_chunk(line.text) {
                return Ok(());
            }
            if line.text.iter().all(|&b| is_space(b)) {
                continue;
            }
            each(self, line)?;
        }
        Err(self.end_of_file(section, opening.number))
    }

    fn materials(&mut self, tokens: &mut Tokens<'a>) -> Result<Vec<MqoMaterial>, MqoError> {
        let opening = tokens.line;
        let count = self.count(tokens, "Material", MATERIAL_COUNT, MIN_MATERIAL_LINE_BYTES)?;
        let mut materials = Vec::with_capacity(count);
        self.chunk_lines(opening, "Material", |parser, line| {
            let material = parser.material(line)?;
            materials.push(material);
            if materials.len() > count {
                return Err(parser.error_at_line(
                    line.number,
                    "Material",
                    holds_more(count, "load.mqo.what.materials"),
                ));
            }
            Ok(())
        })?;
        if materials.len() != count {
            return Err(self.error_at_line(
                opening.number,
                "Material",
                holds_other(count, "load.mqo.what.materials", materials.len()),
            ));
        }
        Ok(materials)
    }

    fn material(&mut self, line: Line<'a>) -> Result<MqoMaterial, MqoError> {
        let section = "Material";
        let mut tokens = Tokens::new(line);
        let name = tokens.quoted().ok_or_else(|| {
            self.error_at(
                &tokens,
                section,
                expected(Message::new("load.mqo.what.material_name")),
            )
        })?;
        let mut material = MqoMaterial {
            name: self.decode(name),
            line: line.number,
            ..MqoMaterial::default()
        };
        while !tokens.at_end() {
            let key_start = tokens.position;
            let key = lowercase(tokens.word());
            if key.is_empty() {
                return Err(self.error_at(&tokens, section, expected_attribute("col(...)")));
            }
            self.expect(&mut tokens, b'(', section)?;
            let at = Tokens {
                line,
                position: key_start,
            };
            match key.as_str() {
                "shader" => {
                    material.shader =
                        self.integer(&mut tokens, section, What::Value("shader"))? as i32
                }
                "vcol" => {
                    material.vertex_color =
                        self.integer(&mut tokens, section, What::Value("vcol"))? != 0
                }
                "dbls" => {
                    material.double_sided =
                        self.integer(&mut tokens, section, What::Value("dbls"))? != 0
                }
                "col" => material.color = self.floats(&mut tokens, section, What::Value("col"))?,
                "dif" => material.diffuse = self.float(&mut tokens, section, What::Value("dif"))?,
                "amb" => material.ambient = self.float(&mut tokens, section, What::Value("amb"))?,
                "emi" => {
                    material.emissive = self.float(&mut tokens, section, What::Value("emi"))?
                }
                "spc" => {
                    material.specular = self.float(&mut tokens, section, What::Value("spc"))?
                }
                "power" => {
                    material.power = self.float(&mut tokens, section, What::Value("power"))?
                }
                "reflect" => {
                    material.reflect =
                        Some(self.float(&mut tokens, section, What::Value("reflect"))?)
                }
                "refract" => {
                    material.refract =
                        Some(self.float(&mut tokens, section, What::Value("refract"))?)
                }
                "amb_col" => {
                    material.ambient_color =
                        Some(self.floats(&mut tokens, section, What::Value("amb_col"))?)
                }
                "emi_col" => {
                    material.emissive_color =
                        Some(self.floats(&mut tokens, section, What::Value("emi_col"))?)
                }
                "spc_col" => {
                    material.specular_color =
                        Some(self.floats(&mut tokens, section, What::Value("spc_col"))?)
                }
                "tex" => material.texture = Some(self.path_argument(&mut tokens, section)?),
                "aplane" | "alpha" => {
                    material.alpha_map = Some(self.path_argument(&mut tokens, section)?)
                }
                "bump" => material.bump_map = Some(self.path_argument(&mut tokens, section)?),
                "proj_type" => {
                    material.projection.kind =
                        self.integer(&mut tokens, section, What::Value("proj_type"))? as i32
                }
                "proj_pos" => {
                    material.projection.position =
                        self.floats(&mut tokens, section, What::Value("proj_pos"))?
                }
                "proj_scale" => {
                    material.projection.scale =
                        self.floats(&mut tokens, section, What::Value("proj_scale"))?
                }
                "proj_angle" => {
                    material.projection.angle =
                        self.floats(&mut tokens, section, What::Value("proj_angle"))?
                }
                "uid" => {
                    material.uid = Some(self.integer(&mut tokens, section, What::Value("uid"))?)
                }
                _ => {
                    self.skip_arguments(&mut tokens, section)?;
                    self.notes.push(MqoNote::UnknownAttribute {
                        name: key,
                        where_: Message::new("load.mqo.where.material"),
                        line: line.number,
                    });
                }
            }
            if !tokens.eat(b')') {
                return Err(self.error_at(
                    &tokens,
                    section,
                    Message::new("load.mqo.unclosed_attribute").arg(
                        "column",
                        self.decode(&line.text[..at.position]).chars().count() + 1,
                    ),
                ));
            }
        }
        Ok(material)
    }

    /// A path argument: `"quoted"` (as Metasequoia writes it) or a bare word.
    fn path_argument(&self, tokens: &mut Tokens<'a>, section: &str) -> Result<String, MqoError> {
        if let Some(quoted) = tokens.quoted() {
            return Ok(self.decode(quoted));
        }
        if tokens.peek() == Some(b'"') {
            return Err(self.error_at(tokens, section, Message::new("load.mqo.unclosed_path")));
        }
        let word = tokens.word();
        Ok(self.decode(word))
    }

    /// Skips an unknown attribute's arguments up to (not including) its `)`.
    fn skip_arguments(&self, tokens: &mut Tokens<'a>, section: &str) -> Result<(), MqoError> {
        loop {
            match tokens.peek() {
                None => return Err(self.error_at(tokens, section, expected_text(')'))),
                Some(b')') => return Ok(()),
                Some(b'"') => {
                    if tokens.quoted().is_none() {
                        return Err(self.error_at(
                            tokens,
                            section,
                            Message::new("load.mqo.unclosed_quote"),
                        ));
                    }
                }
                Some(_) => {
                    if tokens.word().is_empty() {
                        // Punctuation other than `)` inside the arguments.
                        tokens.position += 1;
                    }
                }
            }
        }
    }

    fn object(&mut self, tokens: &mut Tokens<'a>) -> Result<MqoObject, MqoError> {
        let opening = tokens.line;
        let name = match tokens.quoted() {
            Some(name) => self.decode(name),
            None => self.decode(tokens.word()),
        };
        let section = format!("Object \"{name}\"");
        let mut object = MqoObject {
            name,
            line: opening.number,
            ..MqoObject::default()
        };
        let mut face_section = String::new();
        self.chunk_lines(opening, &section.clone(), |parser, line| {
            let mut tokens = Tokens::new(line);
            let keyword = lowercase(tokens.word());
            let s = section.as_str();
            match keyword.as_str() {
                "uid" => object.uid = Some(parser.unsigned(&mut tokens, s, What::Value("uid"))?),
                "depth" => object.depth = parser.unsigned(&mut tokens, s, What::Value("depth"))?,
                "folding" => {
                    object.folding = parser.integer(&mut tokens, s, What::Value("folding"))? != 0
                }
                "scale" => object.scale = parser.floats(&mut tokens, s, What::Value("scale"))?,
                "rotation" => {
                    object.rotation = parser.floats(&mut tokens, s, What::Value("rotation"))?
                }
                "translation" => {
                    object.translation =
                        parser.floats(&mut tokens, s, What::Value("translation"))?
                }
                "patch" => object.patch = parser.unsigned(&mut tokens, s, What::Value("patch"))?,
                "patchtri" => {
                    object.patch_triangles =
                        parser.unsigned(&mut tokens, s, What::Value("patchtri"))?
                }
                "segment" => {
                    object.segment = parser.unsigned(&mut tokens, s, What::Value("segment"))?
                }
                "visible" => {
                    object.visible = parser.integer(&mut tokens, s, What::Value("visible"))? != 0
                }
                "locking" => {
                    object.locked = parser.integer(&mut tokens, s, What::Value("locking"))? != 0
                }
                "shading" => {
                    object.smooth_shading =
                        parser.integer(&mut tokens, s, What::Value("shading"))? != 0
                }
                "facet" => object.facet = parser.float(&mut tokens, s, What::Value("facet"))?,
                "color" => {
                    object.color = Some(parser.floats(&mut tokens, s, What::Value("color"))?)
                }
                "color_type" => {
                    object.color_type =
                        parser.integer(&mut tokens, s, What::Value("color_type"))? as i32
                }
                "mirror" => {
                    object.mirror = match parser.integer(&mut tokens, s, What::Value("mirror"))? {
                        0 => MirrorMode::None,
                        1 => MirrorMode::Separate,
                        _ => MirrorMode::Connected,
                    }
                }
                "mirror_axis" => {
                    object.mirror_axis =
                        (parser.integer(&mut tokens, s, What::Value("mirror_axis"))? & 7) as u8;
                }
                "mirror_dis" => {
                    object.mirror_distance =
                        parser.float(&mut tokens, s, What::Value("mirror_dis"))?
                }
                "lathe" => object.lathe = parser.unsigned(&mut tokens, s, What::Value("lathe"))?,
                "lathe_axis" => {
                    object.lathe_axis =
                        parser.unsigned(&mut tokens, s, What::Value("lathe_axis"))?
                }
                "lathe_seg" => {
                    object.lathe_segments =
                        parser.unsigned(&mut tokens, s, What::Value("lathe_seg"))?
                }
                "normal_weight" => {
                    object.normal_weight =
                        Some(parser.float(&mut tokens, s, What::Value("normal_weight"))?);
                }
                "vertex" if opens_chunk(line.text) => {
                    parser.vertices(&mut tokens, &mut object, s)?
                }
                "bvertex" if opens_chunk(line.text) => {
                    parser.binary_vertices(&mut tokens, &mut object, s)?;
                }
                "vertexattr" if opens_chunk(line.text) => {
                    parser.vertex_attributes(line, &mut object, s)?
                }
                "face" if opens_chunk(line.text) => {
                    face_section = format!("{s} / face");
                    parser.faces(&mut tokens, &mut object, &face_section)?;
                }
                _ => {
                    let name = String::from_utf8_lossy(&line.text[..tokens.position])
                        .trim()
                        .to_owned();
                    if opens_chunk(line.text) {
                        parser.skip_chunk(line, s)?;
                        parser.notes.push(MqoNote::SkippedChunk {
                            name,
                            object: Some(object.name.clone()),
                            line: line.number,
                        });
                    } else {
                        parser.skip_binary(line, s)?;
                        parser.notes.push(MqoNote::UnknownAttribute {
                            name,
                            where_: Message::new("load.mqo.where.object")
                                .arg("object", &object.name),
                            line: line.number,
                        });
                    }
                }
            }
            Ok(())
        })?;
        self.check_faces(&object, &section)?;
        self.check_vertex_attributes(&mut object);
        Ok(object)
    }

    fn vertices(
        &mut self,
        tokens: &mut Tokens<'a>,
        object: &mut MqoObject,
        section: &str,
    ) -> Result<(), MqoError> {
        let opening = tokens.line;
        let count = self.count(tokens, section, VERTEX_COUNT, MIN_VERTEX_LINE_BYTES)?;
        let mut vertices = Vec::with_capacity(count);
        let vertex_section = format!("{section} / vertex");
        self.chunk_lines(opening, &vertex_section, |parser, line| {
            if vertices.len() == count {
                return Err(parser.error_at_line(
                    line.number,
                    &vertex_section,
                    holds_more(count, "load.mqo.what.vertices"),
                ));
            }
            let mut tokens = Tokens::new(line);
            let position = parser.floats::<3>(
                &mut tokens,
                &vertex_section,
                What::Word("load.mqo.what.coordinate"),
            )?;
            vertices.push(position);
            Ok(())
        })?;
        if vertices.len() != count {
            return Err(self.error_at_line(
                opening.number,
                &vertex_section,
                holds_other(count, "load.mqo.what.vertices", vertices.len()),
            ));
        }
        object.vertices = vertices;
        Ok(())
    }

    fn binary_vertices(
        &mut self,
        tokens: &mut Tokens<'a>,
        object: &mut MqoObject,
        section: &str,
    ) -> Result<(), MqoError> {
        let opening = tokens.line;
        let count = self.count(tokens, section, VERTEX_COUNT, 12)?;
        let section = format!("{section} / BVertex");
        let mut vertices: Option<Vec<[f32; 3]>> = None;
        self.chunk_lines(opening, &section.clone(), |parser, line| {
            let mut tokens = Tokens::new(line);
            let keyword = lowercase(tokens.word());
            match keyword.as_str() {
                "vector" => {
                    let declared = parser.number::<usize>(&mut tokens, &section, VERTEX_COUNT)?;
                    if declared != count {
                        return Err(parser.error_at(
                            &tokens,
                            &section,
                            Message::new("load.mqo.vector_count_mismatch")
                                .arg("declared", declared)
                                .arg("count", count),
                        ));
                    }
                    let Some(Ok(size)) = binary_size(line.text) else {
                        return Err(parser.error_at(
                            &tokens,
                            &section,
                            expected(Message::new("load.mqo.what.data_size")),
                        ));
                    };
                    if Some(size) != count.checked_mul(12) {
                        return Err(parser.error_at(
                            &tokens,
                            &section,
                            Message::new("load.mqo.vector_size_mismatch")
                                .arg("size", size)
                                .arg("count", count),
                        ));
                    }
                    let data = parser.skip_binary(line, &section)?.unwrap_or_default();
                    let mut list = Vec::with_capacity(count);
                    for chunk in data.chunks_exact(12) {
                        let value = |i: usize| {
                            f32::from_le_bytes([chunk[i], chunk[i + 1], chunk[i + 2], chunk[i + 3]])
                        };
                        let position = [value(0), value(4), value(8)];
                        if !position.iter().all(|v| v.is_finite()) {
                            return Err(parser.error_at_line(
                                line.number,
                                &section,
                                Message::new("load.mqo.vertex_not_finite")
                                    .arg("vertex", list.len()),
                            ));
                        }
                        list.push(position);
                    }
                    vertices = Some(list);
                }
                // Ver 2.0's BVertex keeps the weights and colours vertexattr later took.
                "weit" | "color" if opens_chunk(line.text) => {
                    parser.vertex_list(line, &section, &keyword, object)?;
                }
                _ => parser.skip_unknown(line, &section, keyword, "BVertex")?,
            }
            Ok(())
        })?;
        object.vertices = vertices.ok_or_else(|| {
            self.error_at_line(
                opening.number,
                &section,
                Message::new("load.mqo.bvertex_without_vector"),
            )
        })?;
        Ok(())
    }

    /// `weit` (curve weights) or `color` (0xAABBGGRR) per vertex: Ver 2.0 keeps them in
    /// `BVertex`, later versions in `vertexattr`.
    fn vertex_list(
        &mut self,
        opening: Line<'a>,
        section: &str,
        keyword: &str,
        object: &mut MqoObject,
    ) -> Result<(), MqoError> {
        if keyword == "weit" {
            let weights = self.indexed_list(opening, section, "weit", |p, t, s| {
                p.float(t, s, What::Word("load.mqo.what.weight"))
            })?;
            object.vertex_weights.extend(weights);
        } else {
            let colors = self.indexed_list(opening, section, "color", |p, t, s| {
                p.unsigned(t, s, What::Word("load.mqo.what.color"))
            })?;
            object.vertex_colors.extend(colors);
        }
        Ok(())
    }

    /// Reads past an attribute of the chunk `chunk` this importer does not know (a chunk or a binary
    /// block), and notes it.
    fn skip_unknown(
        &mut self,
        line: Line<'a>,
        section: &str,
        keyword: String,
        chunk: &str,
    ) -> Result<(), MqoError> {
        if opens_chunk(line.text) {
            self.skip_chunk(line, section)?;
        } else {
            self.skip_binary(line, section)?;
        }
        self.notes.push(MqoNote::UnknownAttribute {
            name: keyword,
            where_: Message::new("load.mqo.where.chunk").arg("chunk", chunk),
            line: line.number,
        });
        Ok(())
    }

    /// A `weit { index value }` or `color { index value }` list.
    fn indexed_list<T>(
        &mut self,
        opening: Line<'a>,
        section: &str,
        name: &str,
        mut value: impl FnMut(&Self, &mut Tokens<'a>, &str) -> Result<T, MqoError>,
    ) -> Result<Vec<(u32, T)>, MqoError> {
        let section = format!("{section} / {name}");
        let mut list = Vec::new();
        self.chunk_lines(opening, &section.clone(), |parser, line| {
            let mut tokens = Tokens::new(line);
            let index = parser.unsigned(
                &mut tokens,
                &section,
                What::Word("load.mqo.what.vertex_index"),
            )?;
            let item = value(parser, &mut tokens, &section)?;
            list.push((index, item));
            Ok(())
        })?;
        Ok(list)
    }

    fn vertex_attributes(
        &mut self,
        opening: Line<'a>,
        object: &mut MqoObject,
        section: &str,
    ) -> Result<(), MqoError> {
        let section = format!("{section} / vertexattr");
        self.chunk_lines(opening, &section.clone(), |parser, line| {
            let mut tokens = Tokens::new(line);
            let keyword = lowercase(tokens.word());
            match keyword.as_str() {
                "uid" if opens_chunk(line.text) => {
                    let uid_section = format!("{section} / uid");
                    let mut uids = Vec::new();
                    parser.chunk_lines(line, &uid_section.clone(), |parser, line| {
                        let mut tokens = Tokens::new(line);
                        uids.push(parser.unsigned(
                            &mut tokens,
                            &uid_section,
                            What::Word("load.mqo.what.vertex_uid"),
                        )?);
                        Ok(())
                    })?;
                    object.vertex_uids = uids;
                }
                "weit" | "color" if opens_chunk(line.text) => {
                    parser.vertex_list(line, &section, &keyword, object)?;
                }
                _ => parser.skip_unknown(line, &section, keyword, "vertexattr")?,
            }
            Ok(())
        })
    }

    fn faces(
        &mut self,
        tokens: &mut Tokens<'a>,
        object: &mut MqoObject,
        section: &str,
    ) -> Result<(), MqoError> {
        let opening = tokens.line;
        let count = self.count(tokens, section, FACE_COUNT, MIN_FACE_LINE_BYTES)?;
        object.faces.reserve(count);
        let first_face = object.faces.len();
        let mut unknown_reported = false;
        self.chunk_lines(opening, section, |parser, line| {
            if object.faces.len() - first_face == count {
                return Err(parser.error_at_line(
                    line.number,
                    section,
                    holds_more(count, "load.mqo.what.faces"),
                ));
            }
            parser.face(line, object, section, &mut unknown_reported)
        })?;
        let held = object.faces.len() - first_face;
        if held != count {
            return Err(self.error_at_line(
                opening.number,
                section,
                holds_other(count, "load.mqo.what.faces", held),
            ));
        }
        Ok(())
    }

    fn face(
        &mut self,
        line: Line<'a>,
        object: &mut MqoObject,
        section: &str,
        unknown_reported: &mut bool,
    ) -> Result<(), MqoError> {
        let mut tokens = Tokens::new(line);
        let corner_count = self.number::<usize>(
            &mut tokens,
            section,
            What::Word("load.mqo.what.corner_count"),
        )?;
        if corner_count < 2 {
            return Err(self.error_at(
                &tokens,
                section,
                Message::new("load.mqo.too_few_corners").arg("corners", corner_count),
            ));
        }
        // Each corner takes at least two bytes of `V(...)`: a larger count cannot be true.
        if corner_count > line.text.len() / 2 {
            return Err(self.error_at(
                &tokens,
                section,
                Message::new("load.mqo.corners_do_not_fit").arg("corners", corner_count),
            ));
        }
        let first_corner = object.corner_vertices.len();
        if u32::try_from(first_corner + corner_count).is_err() {
            return Err(MqoError::LimitExceeded {
                line: line.number,
                message: Message::new("load.mqo.too_many_corners"),
            });
        }
        let mut face = MqoFace {
            first_corner: first_corner as u32,
            corner_count: corner_count as u32,
            material: None,
            has_uv: false,
            has_color: false,
            uid: None,
            line: u32::try_from(line.number).unwrap_or(u32::MAX),
        };
        let mut has_vertices = false;
        let vertex_count = object.vertices.len();
        while !tokens.at_end() {
            let key = tokens.word();
            if key.is_empty() {
                return Err(self.error_at(&tokens, section, expected_attribute("V(...)")));
            }
            let key = lowercase(key);
            self.expect(&mut tokens, b'(', section)?;
            match key.as_str() {
                "v" => {
                    if has_vertices {
                        return Err(self.error_at(&tokens, section, given_twice("V")));
                    }
                    has_vertices = true;
                    for _ in 0..corner_count {
                        // The column of an index out of range is the index's, not the space's.
                        tokens.skip_space();
                        let start = tokens.position;
                        let index = self.unsigned(
                            &mut tokens,
                            section,
                            What::Word("load.mqo.what.vertex_index"),
                        )?;
                        // Vertices come before faces in every file Metasequoia writes; a file
                        // with the face chunk first is checked when its object ends.
                        if vertex_count > 0 && index as usize >= vertex_count {
                            let at = Tokens {
                                line,
                                position: start,
                            };
                            return Err(self.error_at(
                                &at,
                                section,
                                no_such_vertex(index, vertex_count),
                            ));
                        }
                        object.corner_vertices.push(index);
                    }
                }
                "m" => {
                    let material = self.integer(
                        &mut tokens,
                        section,
                        What::Word("load.mqo.what.material_index"),
                    )?;
                    // Only -1 means "no material"; any other index out of range (-2, 2^40)
                    // names a material that does not exist, which the conversion reports.
                    face.material = match material {
                        -1 => None,
                        other => Some(u32::try_from(other).unwrap_or(u32::MAX)),
                    };
                }
                "uv" => {
                    if face.has_uv {
                        return Err(self.error_at(&tokens, section, given_twice("UV")));
                    }
                    face.has_uv = true;
                    object.corner_uvs.resize(first_corner, [0.0, 0.0]);
                    for _ in 0..corner_count {
                        let uv =
                            self.floats::<2>(&mut tokens, section, What::Word("load.mqo.what.uv"))?;
                        object.corner_uvs.push(uv);
                    }
                }
                "col" => {
                    if face.has_color {
                        return Err(self.error_at(&tokens, section, given_twice("COL")));
                    }
                    face.has_color = true;
                    object.corner_colors.resize(first_corner, u32::MAX);
                    for _ in 0..corner_count {
                        let color =
                            self.unsigned(&mut tokens, section, What::Word("load.mqo.what.color"))?;
                        object.corner_colors.push(color);
                    }
                }
                "crs" => {
                    object.corner_creases.resize(first_corner, 0.0);
                    for _ in 0..corner_count {
                        let crease =
                            self.float(&mut tokens, section, What::Word("load.mqo.what.crease"))?;
                        object.corner_creases.push(crease);
                    }
                }
                "uid" => {
                    face.uid = Some(self.unsigned(
                        &mut tokens,
                        section,
                        What::Word("load.mqo.what.face_uid"),
                    )?)
                }
                _ => {
                    // N(...) (Metasequoia 4.8 normals) and anything newer: not needed, normals
                    // are computed from shading and facet.
                    self.skip_arguments(&mut tokens, section)?;
                    if !*unknown_reported {
                        *unknown_reported = true;
                        self.notes.push(MqoNote::UnknownAttribute {
                            name: key.to_ascii_uppercase(),
                            where_: Message::new("load.mqo.where.face").arg("object", &object.name),
                            line: line.number,
                        });
                    }
                }
            }
            self.expect(&mut tokens, b')', section)?;
        }
        if !has_vertices {
            return Err(self.error_at(
                &tokens,
                section,
                Message::new("load.mqo.face_without_vertices"),
            ));
        }
        // Keep every per-corner list either empty or one entry per corner.
        let corners = first_corner + corner_count;
        if !object.corner_uvs.is_empty() {
            object.corner_uvs.resize(corners, [0.0, 0.0]);
        }
        if !object.corner_colors.is_empty() {
            object.corner_colors.resize(corners, u32::MAX);
        }
        if !object.corner_creases.is_empty() {
            object.corner_creases.resize(corners, 0.0);
        }
        object.faces.push(face);
        Ok(())
    }

    /// Vertex indices of faces read before their object's vertices.
    fn check_faces(&self, object: &MqoObject, section: &str) -> Result<(), MqoError> {
        let count = object.vertices.len();
        for face in &object.faces {
            let corners = object.corner_vertices.get(face.corners()).unwrap_or(&[]);
            if let Some(&index) = corners.iter().find(|&&v| v as usize >= count) {
                return Err(self.error_at_line(
                    face.line as usize,
                    &format!("{section} / face"),
                    no_such_vertex(index, count),
                ));
            }
        }
        Ok(())
    }

    /// Drops vertex attributes that cannot belong to the object's vertices.
    fn check_vertex_attributes(&mut self, object: &mut MqoObject) {
        let count = object.vertices.len();
        if !object.vertex_uids.is_empty() && object.vertex_uids.len() != count {
            object.vertex_uids.clear();
        }
        object
            .vertex_weights
            .retain(|&(index, _)| (index as usize) < count);
        object
            .vertex_colors
            .retain(|&(index, _)| (index as usize) < count);
        // Per-corner lists are complete once a face had them; fill the rest for faces before.
        let corners = object.corner_vertices.len();
        if !object.corner_uvs.is_empty() {
            object.corner_uvs.resize(corners, [0.0, 0.0]);
        }
        if !object.corner_colors.is_empty() {
            object.corner_colors.resize(corners, u32::MAX);
        }
        if !object.corner_creases.is_empty() {
            object.corner_creases.resize(corners, 0.0);
        }
    }
}
