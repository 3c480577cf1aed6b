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

/// The fewest bytes a line of each list can take, for checking declared counts.
const MIN_VERTEX_LINE_BYTES: usize = 6; // "0 0 0\n"
const MIN_FACE_LINE_BYTES: usize = 9; // "2 V(0 1)\n"
const MIN_MATERIAL_LINE_BYTES: usize = 3; // "\"\"\n"

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
    fn error_at(&self, tokens: &Tokens<'_>, section: &str, message: impl Into<String>) -> MqoError {
        let prefix = &tokens.line.text[..tokens.position.min(tokens.line.text.len())];
        let column = self.decode(prefix).chars().count() + 1;
        MqoError::Syntax {
            line: tokens.line.number,
            column,
            section: section.to_owned(),
            message: message.into(),
        }
    }

    fn error_at_line(&self, line: usize, section: &str, message: impl Into<String>) -> MqoError {
        MqoError::Syntax {
            line,
            column: 1,
            section: section.to_owned(),
            message: message.into(),
        }
    }

    fn end_of_file(&self, section: &str, opened: usize) -> MqoError {
        MqoError::Syntax {
            line: self.input.next_line,
            column: 1,
            section: section.to_owned(),
            message: format!("the file ends before the chunk opened on line {opened} is closed"),
        }
    }

    fn number<T: std::str::FromStr>(
        &self,
        tokens: &mut Tokens<'_>,
        section: &str,
        what: &str,
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
            let shown = String::from_utf8_lossy(word);
            let message = if word.is_empty() {
                format!("expected {what}")
            } else {
                format!("expected {what}, found `{shown}`")
            };
            self.error_at(&at, section, message)
        })
    }

    fn float(&self, tokens: &mut Tokens<'_>, section: &str, what: &str) -> Result<f32, MqoError> {
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
            Err(self.error_at(&at, section, format!("{what} is not a finite number")))
        }
    }

    fn floats<const N: usize>(
        &self,
        tokens: &mut Tokens<'_>,
        section: &str,
        what: &str,
    ) -> Result<[f32; N], MqoError> {
        let mut values = [0.0; N];
        for value in &mut values {
            *value = self.float(tokens, section, what)?;
        }
        Ok(values)
    }

    fn integer(&self, tokens: &mut Tokens<'_>, section: &str, what: &str) -> Result<i64, MqoError> {
        self.number::<i64>(tokens, section, what)
    }

    fn unsigned(
        &self,
        tokens: &mut Tokens<'_>,
        section: &str,
        what: &str,
    ) -> Result<u32, MqoError> {
        self.number::<u32>(tokens, section, what)
    }

    fn expect(&self, tokens: &mut Tokens<'_>, byte: u8, section: &str) -> Result<(), MqoError> {
        if tokens.eat(byte) {
            Ok(())
        } else {
            Err(self.error_at(tokens, section, format!("expected `{}`", byte as char)))
        }
    }

    /// A declared element count, checked against the limits and the bytes left.
    fn count(
        &self,
        tokens: &mut Tokens<'_>,
        section: &str,
        what: &str,
        min_line_bytes: usize,
    ) -> Result<usize, MqoError> {
        let count = self.number::<usize>(tokens, section, what)?;
        let fits = self.input.remaining() / min_line_bytes;
        if count > self.limits.max_elements {
            return Err(MqoError::LimitExceeded {
                line: tokens.line.number,
                message: format!(
                    "{what} {count} exceeds the limit of {}",
                    self.limits.max_elements
                ),
            });
        }
        if count > fits {
            return Err(self.error_at(
                tokens,
                section,
                format!(
                    "{what} {count} cannot fit in the {} bytes left",
                    self.input.remaining()
                ),
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
                        return Err(self.error_at(&tokens, "IncludeXml", "expected a file name"));
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
                            line: line.number,
                        });
                    } else {
                        self.skip_binary(line, &name)?;
                        self.notes.push(MqoNote::UnknownAttribute {
                            name,
                            where_: "document".into(),
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
            .ok_or_else(|| self.error_at_line(1, "header", "the file is empty"))?;
        let text = first
            .text
            .strip_prefix(b"\xEF\xBB\xBF")
            .unwrap_or(first.text);
        let text = String::from_utf8_lossy(text);
        if !text.trim().eq_ignore_ascii_case("Metasequoia Document") {
            return Err(self.error_at_line(
                first.number,
                "header",
                "not an MQO file: the first line must be `Metasequoia Document`",
            ));
        }
        let second = self.input.next_line().ok_or_else(|| {
            self.error_at_line(2, "header", "expected `Format Text Ver 1.x` on line 2")
        })?;
        let mut tokens = Tokens::new(second);
        if !tokens.word().eq_ignore_ascii_case(b"Format") {
            return Err(self.error_at(&tokens, "header", "expected `Format Text Ver 1.x`"));
        }
        let format = tokens.word();
        if !tokens.word().eq_ignore_ascii_case(b"Ver") {
            return Err(self.error_at(&tokens, "header", "expected `Ver` after the format"));
        }
        let version_text = String::from_utf8_lossy(tokens.word()).into_owned();
        if format.eq_ignore_ascii_case(b"Compress") {
            return Err(MqoError::Unsupported {
                line: second.number,
                message: "compressed MQO (`Format Compress`) is not supported; the \
                          specification marks it as unsupported by Metasequoia itself"
                    .into(),
            });
        }
        if !format.eq_ignore_ascii_case(b"Text") {
            return Err(MqoError::Unsupported {
                line: second.number,
                message: format!(
                    "unknown MQO format `{}` (only `Text` is read)",
                    String::from_utf8_lossy(format)
                ),
            });
        }
        let mut parts = version_text.splitn(2, '.');
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().map_or(Some(0), |p| p.parse::<u32>().ok());
        let (Some(major), Some(minor)) = (major, minor) else {
            return Err(self.error_at(
                &tokens,
                "header",
                format!("`{version_text}` is not a version number"),
            ));
        };
        if major != 1 {
            return Err(MqoError::Unsupported {
                line: second.number,
                message: format!(
                    "MQO format version {version_text} is not supported (only 1.x); the \
                     specification says to stop on an unknown major version"
                ),
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
                "the binary size in `[...]` is not a number",
            )),
            Some(Ok(size)) => {
                let remaining = self.input.remaining();
                self.input.take(size).map(Some).ok_or_else(|| {
                    self.error_at_line(
                        line.number,
                        section,
                        format!("a binary block of {size} bytes, but only {remaining} are left"),
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
        let count = self.count(
            tokens,
            "Material",
            "material count",
            MIN_MATERIAL_LINE_BYTES,
        )?;
        let mut materials = Vec::with_capacity(count);
        self.chunk_lines(opening, "Material", |parser, line| {
            let material = parser.material(line)?;
            materials.push(material);
            if materials.len() > count {
                return Err(parser.error_at_line(
                    line.number,
                    "Material",
                    format!("the chunk declares {count} materials but holds more"),
                ));
            }
            Ok(())
        })?;
        if materials.len() != count {
            return Err(self.error_at_line(
                opening.number,
                "Material",
                format!(
                    "the chunk declares {count} materials but holds {}",
                    materials.len()
                ),
            ));
        }
        Ok(materials)
    }

    fn material(&mut self, line: Line<'a>) -> Result<MqoMaterial, MqoError> {
        let section = "Material";
        let mut tokens = Tokens::new(line);
        let name = tokens
            .quoted()
            .ok_or_else(|| self.error_at(&tokens, section, "expected the material's \"name\""))?;
        let mut material = MqoMaterial {
            name: self.decode(name),
            line: line.number,
            ..MqoMaterial::default()
        };
        while !tokens.at_end() {
            let key_start = tokens.position;
            let key = lowercase(tokens.word());
            if key.is_empty() {
                return Err(self.error_at(
                    &tokens,
                    section,
                    "expected an attribute such as col(...)",
                ));
            }
            self.expect(&mut tokens, b'(', section)?;
            let at = Tokens {
                line,
                position: key_start,
            };
            match key.as_str() {
                "shader" => material.shader = self.integer(&mut tokens, section, "shader")? as i32,
                "vcol" => material.vertex_color = self.integer(&mut tokens, section, "vcol")? != 0,
                "dbls" => material.double_sided = self.integer(&mut tokens, section, "dbls")? != 0,
                "col" => material.color = self.floats(&mut tokens, section, "colour")?,
                "dif" => material.diffuse = self.float(&mut tokens, section, "dif")?,
                "amb" => material.ambient = self.float(&mut tokens, section, "amb")?,
                "emi" => material.emissive = self.float(&mut tokens, section, "emi")?,
                "spc" => material.specular = self.float(&mut tokens, section, "spc")?,
                "power" => material.power = self.float(&mut tokens, section, "power")?,
                "reflect" => {
                    material.reflect = Some(self.float(&mut tokens, section, "reflect")?)
                }
                "refract" => {
                    material.refract = Some(self.float(&mut tokens, section, "refract")?)
                }
                "amb_col" => {
                    material.ambient_color = Some(self.floats(&mut tokens, section, "amb_col")?)
                }
                "emi_col" => {
                    material.emissive_color = Some(self.floats(&mut tokens, section, "emi_col")?)
                }
                "spc_col" => {
                    material.specular_color = Some(self.floats(&mut tokens, section, "spc_col")?)
                }
                "tex" => material.texture = Some(self.path_argument(&mut tokens, section)?),
                "aplane" | "alpha" => {
                    material.alpha_map = Some(self.path_argument(&mut tokens, section)?)
                }
                "bump" => material.bump_map = Some(self.path_argument(&mut tokens, section)?),
                "proj_type" => {
                    material.projection.kind =
                        self.integer(&mut tokens, section, "proj_type")? as i32
                }
                "proj_pos" => {
                    material.projection.position = self.floats(&mut tokens, section, "proj_pos")?
                }
                "proj_scale" => {
                    material.projection.scale = self.floats(&mut tokens, section, "proj_scale")?
                }
                "proj_angle" => {
                    material.projection.angle = self.floats(&mut tokens, section, "proj_angle")?
                }
                "uid" => material.uid = Some(self.integer(&mut tokens, section, "uid")?),
                _ => {
                    self.skip_arguments(&mut tokens, section)?;
                    self.notes.push(MqoNote::UnknownAttribute {
                        name: key,
                        where_: "material".into(),
                        line: line.number,
                    });
                }
            }
            if !tokens.eat(b')') {
                return Err(self.error_at(
                    &tokens,
                    section,
                    format!(
                        "expected `)` closing the attribute that starts at column {}",
                        self.decode(&line.text[..at.position]).chars().count() + 1
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
            return Err(self.error_at(tokens, section, "the quoted path is not closed"));
        }
        let word = tokens.word();
        Ok(self.decode(word))
    }

    /// Skips an unknown attribute's arguments up to (not including) its `)`.
    fn skip_arguments(&self, tokens: &mut Tokens<'a>, section: &str) -> Result<(), MqoError> {
        loop {
            match tokens.peek() {
                None => return Err(self.error_at(tokens, section, "expected `)`")),
                Some(b')') => return Ok(()),
                Some(b'"') => {
                    if tokens.quoted().is_none() {
                        return Err(self.error_at(
                            tokens,
                            section,
                            "the quoted text is not closed",
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
                "uid" => object.uid = Some(parser.unsigned(&mut tokens, s, "uid")?),
                "depth" => object.depth = parser.unsigned(&mut tokens, s, "depth")?,
                "folding" => object.folding = parser.integer(&mut tokens, s, "folding")? != 0,
                "scale" => object.scale = parser.floats(&mut tokens, s, "scale")?,
                "rotation" => object.rotation = parser.floats(&mut tokens, s, "rotation")?,
                "translation" => {
                    object.translation = parser.floats(&mut tokens, s, "translation")?
                }
                "patch" => object.patch = parser.unsigned(&mut tokens, s, "patch")?,
                "patchtri" => {
                    object.patch_triangles = parser.unsigned(&mut tokens, s, "patchtri")?
                }
                "segment" => object.segment = parser.unsigned(&mut tokens, s, "segment")?,
                "visible" => object.visible = parser.integer(&mut tokens, s, "visible")? != 0,
                "locking" => object.locked = parser.integer(&mut tokens, s, "locking")? != 0,
                "shading" => {
                    object.smooth_shading = parser.integer(&mut tokens, s, "shading")? != 0
                }
                "facet" => object.facet = parser.float(&mut tokens, s, "facet")?,
                "color" => object.color = Some(parser.floats(&mut tokens, s, "color")?),
                "color_type" => {
                    object.color_type = parser.integer(&mut tokens, s, "color_type")? as i32
                }
                "mirror" => {
                    object.mirror = match parser.integer(&mut tokens, s, "mirror")? {
                        0 => MirrorMode::None,
                        1 => MirrorMode::Separate,
                        _ => MirrorMode::Connected,
                    }
                }
                "mirror_axis" => {
                    object.mirror_axis = (parser.integer(&mut tokens, s, "mirror_axis")? & 7) as u8;
                }
                "mirror_dis" => {
                    object.mirror_distance = parser.float(&mut tokens, s, "mirror_dis")?
                }
                "lathe" => object.lathe = parser.unsigned(&mut tokens, s, "lathe")?,
                "lathe_axis" => {
                    object.lathe_axis = parser.unsigned(&mut tokens, s, "lathe_axis")?
                }
                "lathe_seg" => {
                    object.lathe_segments = parser.unsigned(&mut tokens, s, "lathe_seg")?
                }
                "normal_weight" => {
                    object.normal_weight = Some(parser.float(&mut tokens, s, "normal_weight")?);
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
                            name: format!("{name} (in object \"{}\")", object.name),
                            line: line.number,
                        });
                    } else {
                        parser.skip_binary(line, s)?;
                        parser.notes.push(MqoNote::UnknownAttribute {
                            name,
                            where_: format!("object \"{}\"", object.name),
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
        let count = self.count(tokens, section, "vertex count", MIN_VERTEX_LINE_BYTES)?;
        let mut vertices = Vec::with_capacity(count);
        let vertex_section = format!("{section} / vertex");
        self.chunk_lines(opening, &vertex_section, |parser, line| {
            if vertices.len() == count {
                return Err(parser.error_at_line(
                    line.number,
                    &vertex_section,
                    format!("the chunk declares {count} vertices but holds more"),
                ));
            }
            let mut tokens = Tokens::new(line);
            let position = parser.floats::<3>(&mut tokens, &vertex_section, "a coordinate")?;
            vertices.push(position);
            Ok(())
        })?;
        if vertices.len() != count {
            return Err(self.error_at_line(
                opening.number,
                &vertex_section,
                format!(
                    "the chunk declares {count} vertices but holds {}",
                    vertices.len()
                ),
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
        let count = self.count(tokens, section, "vertex count", 12)?;
        let section = format!("{section} / BVertex");
        let mut vertices: Option<Vec<[f32; 3]>> = None;
        self.chunk_lines(opening, &section.clone(), |parser, line| {
            let mut tokens = Tokens::new(line);
            let keyword = lowercase(tokens.word());
            match keyword.as_str() {
                "vector" => {
                    let declared = parser.number::<usize>(&mut tokens, &section, "vertex count")?;
                    if declared != count {
                        return Err(parser.error_at(
                            &tokens,
                            &section,
                            format!(
                                "Vector holds {declared} vertices but BVertex declares {count}"
                            ),
                        ));
                    }
                    let Some(Ok(size)) = binary_size(line.text) else {
                        return Err(parser.error_at(&tokens, &section, "expected `[data size]`"));
                    };
                    if Some(size) != count.checked_mul(12) {
                        return Err(parser.error_at(
                            &tokens,
                            &section,
                            format!(
                                "data size {size} is not 12 bytes for each of {count} vertices"
                            ),
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
                                format!("vertex {} is not finite", list.len()),
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
            self.error_at_line(opening.number, &section, "BVertex without a Vector block")
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
                p.float(t, s, "a weight")
            })?;
            object.vertex_weights.extend(weights);
        } else {
            let colors = self.indexed_list(opening, section, "color", |p, t, s| {
                p.unsigned(t, s, "a colour")
            })?;
            object.vertex_colors.extend(colors);
        }
        Ok(())
    }

    /// Reads past an attribute of `where_` this importer does not know (a chunk or a binary
    /// block), and notes it.
    fn skip_unknown(
        &mut self,
        line: Line<'a>,
        section: &str,
        keyword: String,
        where_: &str,
    ) -> Result<(), MqoError> {
        if opens_chunk(line.text) {
            self.skip_chunk(line, section)?;
        } else {
            self.skip_binary(line, section)?;
        }
        self.notes.push(MqoNote::UnknownAttribute {
            name: keyword,
            where_: where_.into(),
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
            let index = parser.unsigned(&mut tokens, &section, "a vertex index")?;
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
                        uids.push(parser.unsigned(&mut tokens, &uid_section, "a vertex uid")?);
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
        let count = self.count(tokens, section, "face count", MIN_FACE_LINE_BYTES)?;
        object.faces.reserve(count);
        let first_face = object.faces.len();
        let mut unknown_reported = false;
        self.chunk_lines(opening, section, |parser, line| {
            if object.faces.len() - first_face == count {
                return Err(parser.error_at_line(
                    line.number,
                    section,
                    format!("the chunk declares {count} faces but holds more"),
                ));
            }
            parser.face(line, object, section, &mut unknown_reported)
        })?;
        let held = object.faces.len() - first_face;
        if held != count {
            return Err(self.error_at_line(
                opening.number,
                section,
                format!("the chunk declares {count} faces but holds {held}"),
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
        let corner_count = self.number::<usize>(&mut tokens, section, "the corner count")?;
        if corner_count < 2 {
            return Err(self.error_at(
                &tokens,
                section,
                format!("a face has at least 2 corners, not {corner_count}"),
            ));
        }
        // Each corner takes at least two bytes of `V(...)`: a larger count cannot be true.
        if corner_count > line.text.len() / 2 {
            return Err(self.error_at(
                &tokens,
                section,
                format!("{corner_count} corners cannot fit on this line"),
            ));
        }
        let first_corner = object.corner_vertices.len();
        if u32::try_from(first_corner + corner_count).is_err() {
            return Err(MqoError::LimitExceeded {
                line: line.number,
                message: "more than 2^32 face corners in one object".into(),
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
                return Err(self.error_at(
                    &tokens,
                    section,
                    "expected an attribute such as V(...)",
                ));
            }
            let key = lowercase(key);
            self.expect(&mut tokens, b'(', section)?;
            match key.as_str() {
                "v" => {
                    if has_vertices {
                        return Err(self.error_at(&tokens, section, "V(...) given twice"));
                    }
                    has_vertices = true;
                    for _ in 0..corner_count {
                        // The column of an index out of range is the index's, not the space's.
                        tokens.skip_space();
                        let start = tokens.position;
                        let index = self.unsigned(&mut tokens, section, "a vertex index")?;
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
                                format!(
                                    "vertex {index} does not exist (the object has {vertex_count})"
                                ),
                            ));
                        }
                        object.corner_vertices.push(index);
                    }
                }
                "m" => {
                    let material = self.integer(&mut tokens, section, "a material index")?;
                    // Only -1 means "no material"; any other index out of range (-2, 2^40)
                    // names a material that does not exist, which the conversion reports.
                    face.material = match material {
                        -1 => None,
                        other => Some(u32::try_from(other).unwrap_or(u32::MAX)),
                    };
                }
                "uv" => {
                    if face.has_uv {
                        return Err(self.error_at(&tokens, section, "UV(...) given twice"));
                    }
                    face.has_uv = true;
                    object.corner_uvs.resize(first_corner, [0.0, 0.0]);
                    for _ in 0..corner_count {
                        let uv = self.floats::<2>(&mut tokens, section, "a UV coordinate")?;
                        object.corner_uvs.push(uv);
                    }
                }
                "col" => {
                    if face.has_color {
                        return Err(self.error_at(&tokens, section, "COL(...) given twice"));
                    }
                    face.has_color = true;
                    object.corner_colors.resize(first_corner, u32::MAX);
                    for _ in 0..corner_count {
                        let color = self.unsigned(&mut tokens, section, "a colour")?;
                        object.corner_colors.push(color);
                    }
                }
                "crs" => {
                    object.corner_creases.resize(first_corner, 0.0);
                    for _ in 0..corner_count {
                        let crease = self.float(&mut tokens, section, "a crease")?;
                        object.corner_creases.push(crease);
                    }
                }
                "uid" => face.uid = Some(self.unsigned(&mut tokens, section, "a face uid")?),
                _ => {
                    // N(...) (Metasequoia 4.8 normals) and anything newer: not needed, normals
                    // are computed from shading and facet.
                    self.skip_arguments(&mut tokens, section)?;
                    if !*unknown_reported {
                        *unknown_reported = true;
                        self.notes.push(MqoNote::UnknownAttribute {
                            name: key.to_ascii_uppercase(),
                            where_: format!("face of object \"{}\"", object.name),
                            line: line.number,
                        });
                    }
                }
            }
            self.expect(&mut tokens, b')', section)?;
        }
        if !has_vertices {
            return Err(self.error_at(&tokens, section, "the face has no V(...)"));
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
                    format!("vertex {index} does not exist (the object has {count})"),
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
