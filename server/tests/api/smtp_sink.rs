//! A real SMTP sink for tests: a TCP server on 127.0.0.1 that speaks enough SMTP for lettre
//! (EHLO, AUTH PLAIN, MAIL, RCPT, DATA, QUIT) and keeps each message's raw data and each AUTH
//! line's credentials. It can turn the first `refuse` connections away with a 421, as a mail
//! server that is down for a moment does.

use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

pub struct SmtpSink {
    pub port: u16,
    pub messages: Arc<Mutex<Vec<String>>>,
    /// The `user:password` of each `AUTH PLAIN`, decoded.
    pub logins: Arc<Mutex<Vec<String>>>,
}

impl SmtpSink {
    /// Start a sink that refuses its first `refuse` connections.
    pub async fn start(refuse: usize) -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind smtp sink");
        let port = listener.local_addr().expect("addr").port();
        let messages = Arc::new(Mutex::new(Vec::new()));
        let kept = messages.clone();
        let logins = Arc::new(Mutex::new(Vec::new()));
        let logged = logins.clone();
        tokio::spawn(async move {
            let mut seen = 0;
            while let Ok((socket, _)) = listener.accept().await {
                seen += 1;
                let kept = kept.clone();
                let logged = logged.clone();
                let refused = seen <= refuse;
                tokio::spawn(async move {
                    let (read, mut write) = socket.into_split();
                    if refused {
                        let _ = write.write_all(b"421 sink.test Service not available, try again later\r\n").await;
                        return;
                    }
                    let mut lines = BufReader::new(read).lines();
                    let _ = write.write_all(b"220 sink.test ESMTP\r\n").await;
                    let mut data: Option<String> = None;
                    while let Ok(Some(line)) = lines.next_line().await {
                        if let Some(body) = data.as_mut() {
                            if line == "." {
                                if let Ok(mut all) = kept.lock() {
                                    all.push(std::mem::take(body));
                                }
                                data = None;
                                let _ = write.write_all(b"250 kept\r\n").await;
                            } else {
                                body.push_str(&line);
                                body.push('\n');
                            }
                            continue;
                        }
                        let verb = line.split_whitespace().next().unwrap_or("").to_ascii_uppercase();
                        let answer: &[u8] = match verb.as_str() {
                            "EHLO" | "HELO" => b"250-sink.test\r\n250 AUTH PLAIN\r\n",
                            "AUTH" => {
                                let encoded = line.split_whitespace().nth(2).unwrap_or("");
                                let plain = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, encoded)
                                    .unwrap_or_default();
                                let parts: Vec<String> =
                                    plain.split(|b| *b == 0).map(|p| String::from_utf8_lossy(p).into_owned()).collect();
                                if let (Ok(mut all), [_, user, pass]) = (logged.lock(), parts.as_slice()) {
                                    all.push(format!("{user}:{pass}"));
                                }
                                b"235 authenticated\r\n"
                            }
                            "DATA" => {
                                data = Some(String::new());
                                b"354 go on\r\n"
                            }
                            "QUIT" => {
                                let _ = write.write_all(b"221 bye\r\n").await;
                                return;
                            }
                            _ => b"250 ok\r\n",
                        };
                        let _ = write.write_all(answer).await;
                    }
                });
            }
        });
        SmtpSink { port, messages, logins }
    }

    pub fn received(&self) -> Vec<String> {
        self.messages.lock().map(|m| m.clone()).unwrap_or_default()
    }

    pub fn logins(&self) -> Vec<String> {
        self.logins.lock().map(|m| m.clone()).unwrap_or_default()
    }
}
