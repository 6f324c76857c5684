//! The stand-in's answers to the SDK's three services: each call recorded, then answered from
//! the state as the real SDK server would (a player connected twice is `false` the second
//! time; a counter not declared is `NOT_FOUND`; a count above its capacity is refused).

use std::net::TcpListener;

use tokio::sync::oneshot;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::{Request, Response, Status, Streaming};
use tracing::warn;

use super::proto::{alpha, beta, sdk};
use super::{Shared, lock, record};

/// Serves the three services on `listener` until `stop`.
pub(super) async fn serve(listener: TcpListener, state: Shared, stop: oneshot::Receiver<()>) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            warn!(error = %e, "the stand-in SDK server cannot listen");
            return;
        }
    };
    let server = tonic::transport::Server::builder()
        .add_service(sdk::sdk_server::SdkServer::new(Stable(state.clone())))
        .add_service(alpha::sdk_server::SdkServer::new(Alpha(state.clone())))
        .add_service(beta::sdk_server::SdkServer::new(Beta(state)))
        .serve_with_incoming(TcpListenerStream::new(listener));
    tokio::select! {
        served = server => if let Err(e) = served {
            warn!(error = %e, "the stand-in SDK server stopped");
        },
        _ = stop => {}
    }
}

struct Stable(Shared);
struct Alpha(Shared);
struct Beta(Shared);

fn empty() -> Response<sdk::Empty> {
    Response::new(sdk::Empty {})
}

#[tonic::async_trait]
impl sdk::sdk_server::Sdk for Stable {
    async fn ready(&self, _: Request<sdk::Empty>) -> Result<Response<sdk::Empty>, Status> {
        record(&self.0, "Ready", "");
        Ok(empty())
    }

    async fn allocate(&self, _: Request<sdk::Empty>) -> Result<Response<sdk::Empty>, Status> {
        record(&self.0, "Allocate", "");
        Ok(empty())
    }

    async fn shutdown(&self, _: Request<sdk::Empty>) -> Result<Response<sdk::Empty>, Status> {
        record(&self.0, "Shutdown", "");
        Ok(empty())
    }

    async fn health(
        &self,
        request: Request<Streaming<sdk::Empty>>,
    ) -> Result<Response<sdk::Empty>, Status> {
        let mut pings = request.into_inner();
        while pings.message().await?.is_some() {
            record(&self.0, "Health", "");
        }
        Ok(empty())
    }

    async fn get_game_server(
        &self,
        _: Request<sdk::Empty>,
    ) -> Result<Response<sdk::GameServer>, Status> {
        record(&self.0, "GetGameServer", "");
        Ok(Response::new(sdk::GameServer::default()))
    }

    type WatchGameServerStream = tokio_stream::Empty<Result<sdk::GameServer, Status>>;

    async fn watch_game_server(
        &self,
        _: Request<sdk::Empty>,
    ) -> Result<Response<Self::WatchGameServerStream>, Status> {
        record(&self.0, "WatchGameServer", "");
        Err(Status::unimplemented("the stand-in does not watch"))
    }

    async fn set_label(&self, kv: Request<sdk::KeyValue>) -> Result<Response<sdk::Empty>, Status> {
        let kv = kv.into_inner();
        record(&self.0, "SetLabel", format!("{}={}", kv.key, kv.value));
        Ok(empty())
    }

    async fn set_annotation(
        &self,
        kv: Request<sdk::KeyValue>,
    ) -> Result<Response<sdk::Empty>, Status> {
        let kv = kv.into_inner();
        record(&self.0, "SetAnnotation", format!("{}={}", kv.key, kv.value));
        Ok(empty())
    }

    async fn reserve(&self, d: Request<sdk::Duration>) -> Result<Response<sdk::Empty>, Status> {
        record(&self.0, "Reserve", d.into_inner().seconds.to_string());
        Ok(empty())
    }
}

#[tonic::async_trait]
impl alpha::sdk_server::Sdk for Alpha {
    async fn player_connect(
        &self,
        id: Request<alpha::PlayerId>,
    ) -> Result<Response<alpha::Bool>, Status> {
        let id = id.into_inner().player_id;
        record(&self.0, "PlayerConnect", id.clone());
        let mut state = lock(&self.0);
        if state.players.contains(&id) {
            return Ok(Response::new(alpha::Bool { bool: false }));
        }
        if state.players.len() as i64 >= state.player_capacity {
            return Err(Status::out_of_range("players are already at capacity"));
        }
        state.players.push(id);
        Ok(Response::new(alpha::Bool { bool: true }))
    }

    async fn player_disconnect(
        &self,
        id: Request<alpha::PlayerId>,
    ) -> Result<Response<alpha::Bool>, Status> {
        let id = id.into_inner().player_id;
        record(&self.0, "PlayerDisconnect", id.clone());
        let mut state = lock(&self.0);
        let before = state.players.len();
        state.players.retain(|p| *p != id);
        Ok(Response::new(alpha::Bool {
            bool: state.players.len() < before,
        }))
    }

    async fn set_player_capacity(
        &self,
        count: Request<alpha::Count>,
    ) -> Result<Response<alpha::Empty>, Status> {
        let count = count.into_inner().count;
        record(&self.0, "SetPlayerCapacity", count.to_string());
        lock(&self.0).player_capacity = count;
        Ok(Response::new(alpha::Empty {}))
    }

    async fn get_player_capacity(
        &self,
        _: Request<alpha::Empty>,
    ) -> Result<Response<alpha::Count>, Status> {
        record(&self.0, "GetPlayerCapacity", "");
        let count = lock(&self.0).player_capacity;
        Ok(Response::new(alpha::Count { count }))
    }

    async fn get_player_count(
        &self,
        _: Request<alpha::Empty>,
    ) -> Result<Response<alpha::Count>, Status> {
        record(&self.0, "GetPlayerCount", "");
        let count = lock(&self.0).players.len() as i64;
        Ok(Response::new(alpha::Count { count }))
    }

    async fn is_player_connected(
        &self,
        id: Request<alpha::PlayerId>,
    ) -> Result<Response<alpha::Bool>, Status> {
        let id = id.into_inner().player_id;
        record(&self.0, "IsPlayerConnected", id.clone());
        let bool = lock(&self.0).players.contains(&id);
        Ok(Response::new(alpha::Bool { bool }))
    }

    async fn get_connected_players(
        &self,
        _: Request<alpha::Empty>,
    ) -> Result<Response<alpha::PlayerIdList>, Status> {
        record(&self.0, "GetConnectedPlayers", "");
        let list = lock(&self.0).players.clone();
        Ok(Response::new(alpha::PlayerIdList { list }))
    }
}

/// Lists are recorded and refused: the game keeps none.
fn no_lists(state: &Shared, method: &str) -> Status {
    record(state, method, "");
    Status::unimplemented("the stand-in keeps no lists")
}

#[tonic::async_trait]
impl beta::sdk_server::Sdk for Beta {
    async fn get_counter(
        &self,
        request: Request<beta::GetCounterRequest>,
    ) -> Result<Response<beta::Counter>, Status> {
        let name = request.into_inner().name;
        record(&self.0, "GetCounter", name.clone());
        let state = lock(&self.0);
        let (_, count, capacity) = state
            .counters
            .iter()
            .find(|(n, _, _)| *n == name)
            .ok_or_else(|| Status::not_found(format!("counter not found: {name}")))?;
        Ok(Response::new(beta::Counter {
            name,
            count: *count,
            capacity: *capacity,
        }))
    }

    async fn update_counter(
        &self,
        request: Request<beta::UpdateCounterRequest>,
    ) -> Result<Response<beta::Counter>, Status> {
        let update = request
            .into_inner()
            .counter_update_request
            .ok_or_else(|| Status::invalid_argument("no CounterUpdateRequest"))?;
        let mut value = update.name.clone();
        if let Some(count) = update.count {
            value += &format!(" count={count}");
        }
        if let Some(capacity) = update.capacity {
            value += &format!(" capacity={capacity}");
        }
        if update.count_diff != 0 {
            value += &format!(" diff={}", update.count_diff);
        }
        record(&self.0, "UpdateCounter", value);
        let mut state = lock(&self.0);
        let (_, count, capacity) = state
            .counters
            .iter_mut()
            .find(|(n, _, _)| *n == update.name)
            .ok_or_else(|| Status::not_found(format!("counter not found: {}", update.name)))?;
        let new_capacity = update.capacity.unwrap_or(*capacity);
        let new_count = update
            .count
            .unwrap_or(*count)
            .saturating_add(update.count_diff);
        if new_capacity < 0 || new_count < 0 || new_count > new_capacity {
            return Err(Status::out_of_range(format!(
                "count {new_count} out of range for capacity {new_capacity}"
            )));
        }
        (*count, *capacity) = (new_count, new_capacity);
        Ok(Response::new(beta::Counter {
            name: update.name,
            count: new_count,
            capacity: new_capacity,
        }))
    }

    async fn get_list(
        &self,
        _: Request<beta::GetListRequest>,
    ) -> Result<Response<beta::List>, Status> {
        Err(no_lists(&self.0, "GetList"))
    }

    async fn update_list(
        &self,
        _: Request<beta::UpdateListRequest>,
    ) -> Result<Response<beta::List>, Status> {
        Err(no_lists(&self.0, "UpdateList"))
    }

    async fn add_list_value(
        &self,
        _: Request<beta::AddListValueRequest>,
    ) -> Result<Response<beta::List>, Status> {
        Err(no_lists(&self.0, "AddListValue"))
    }

    async fn remove_list_value(
        &self,
        _: Request<beta::RemoveListValueRequest>,
    ) -> Result<Response<beta::List>, Status> {
        Err(no_lists(&self.0, "RemoveListValue"))
    }
}
